import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { appNodeOptions } from "../../scripts/app-node-options";
import { LIMITS_LIFTED } from "./processes";

/** One `db.upkeep` line of the app's log: the database's own maintenance (VACUUM, ANALYZE…) and how long it took. */
export interface UpkeepPause {
  /** Which of the bench's starts of the app logged it. */
  start: string;
  /** The line's own time. */
  at: string;
  task: string;
  ms: number;
}

export interface AppOptions {
  root: string;
  port: number;
  /** The app's configuration (DATABASE_URL or DATA_DIR, SANDBOX_PORT…), over this process's environment. */
  env: Record<string, string>;
  /** The app's log lines are appended here. */
  logFile: string;
  /** Every `db.upkeep` line the app logs, across its starts. */
  upkeep: UpkeepPause[];
  /** Node's own options for the server (those NODE_OPTIONS may not carry, such as --cpu-prof). */
  nodeArgs?: string[];
}

export interface RunningApp {
  origin: string;
  pid: number;
  /** From the spawn to the first 200 from /api/health. */
  readyMs: number;
  /** SIGTERM, as `npm start` passes Ctrl-C on; resolves once the process has exited, with how long that took. */
  stop(): Promise<number>;
  /** SIGKILL to the server's process group: a crash, the database's files left as they were. */
  kill(): Promise<void>;
}

const READY_TIMEOUT_MS = 15 * 60_000;
const STOP_TIMEOUT_MS = 120_000;
const running = new Set<ChildProcess>();

/** Kills every app server still running (the bench's `finally`), by its PID, never by name: once they have exited. */
export async function killEveryApp(): Promise<void> {
  const exits = [...running].map((child) => new Promise((resolve) => child.once("exit", resolve)));
  for (const child of running) killGroup(child);
  await Promise.all(exits);
}

function killGroup(child: ChildProcess) {
  try {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function collectUpkeep(stream: Readable, upkeep: UpkeepPause[], start: string) {
  createInterface({ input: stream }).on("line", (line) => {
    if (!line.includes('"db.upkeep"')) return;
    try {
      const entry = JSON.parse(line) as {
        event?: string;
        time?: string;
        task?: unknown;
        table?: unknown;
        ms?: unknown;
      };
      if (entry.event === "db.upkeep" && typeof entry.ms === "number") {
        const task = [entry.task, entry.table].filter((part) => part !== undefined).join(" ");
        upkeep.push({ start, at: entry.time ?? new Date().toISOString(), task, ms: entry.ms });
      }
    } catch {
      // not one of the app's JSON lines
    }
  });
}

async function answersOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/**
 * The app as `npm start` runs it, without its build check and its sandbox (the bench runs its own): Next.js behind
 * scripts/server.mjs, with the heap cap of scripts/app-node-options.ts. Its own process group, so that a SIGKILL
 * reaches everything it may have started. Resolves once /api/health answers 200; anything else is "not yet".
 * `start` names this start in the bench's words, for its upkeep lines.
 */
export async function startApp(
  { root, port, env, logFile, upkeep, nodeArgs = [] }: AppOptions,
  start: string,
): Promise<RunningApp> {
  const log = createWriteStream(logFile, { flags: "a" });
  const started = performance.now();
  const child = spawn(
    process.execPath,
    // --exit-with-parent: a bench killed outright leaves no server on its ledger.
    [
      ...nodeArgs,
      join(root, "scripts/server.mjs"),
      "--port",
      String(port),
      "--hostname",
      "127.0.0.1",
      "--exit-with-parent",
    ],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: "1",
        NODE_OPTIONS: appNodeOptions(process.env.NODE_OPTIONS),
        ...LIMITS_LIFTED,
        ...env,
      },
    },
  );
  running.add(child);
  for (const stream of [child.stdout, child.stderr]) {
    stream.pipe(log, { end: false });
    collectUpkeep(stream, upkeep, start);
  }
  const exited = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => {
      running.delete(child);
      resolve(signal ?? `exit ${code}`);
    }),
  );
  let exit: string | undefined;
  void exited.then((how) => (exit = how));

  const origin = `http://127.0.0.1:${port}`;
  while (!(await answersOk(`${origin}/api/health`))) {
    if (exit) throw new Error(`The app stopped before it was ready (${exit}); its log: ${logFile}`);
    if (performance.now() - started > READY_TIMEOUT_MS) {
      killGroup(child);
      throw new Error(
        `The app was not ready within ${READY_TIMEOUT_MS / 60_000} minutes; its log: ${logFile}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const readyMs = performance.now() - started;

  return {
    origin,
    pid: child.pid!,
    readyMs,
    async stop() {
      const stopping = performance.now();
      child.kill("SIGTERM");
      const timer = setTimeout(() => killGroup(child), STOP_TIMEOUT_MS);
      const how = await exited;
      clearTimeout(timer);
      if (how !== "exit 0") throw new Error(`The app did not stop cleanly (${how}); its log: ${logFile}`);
      return performance.now() - stopping;
    },
    async kill() {
      killGroup(child);
      await exited;
    },
  };
}
