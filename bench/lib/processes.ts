import { spawn, type ChildProcess } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";

export interface RunningProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** SIGTERM to this process's own PID, SIGKILL after 5 s. */
  stop(): Promise<void>;
}

/** Starts a server process with its output in `logFile`; it is stopped by its PID, never by name. */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  { env, cwd, logFile }: { env: NodeJS.ProcessEnv; cwd: string; logFile: string },
): RunningProcess {
  const log = openSync(logFile, "a");
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", log, log] });
  if (!child.pid) throw new Error(`Could not start ${name}.`);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    name,
    pid: child.pid,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `url` until it answers 2xx, or fails when the process exits or `timeoutMs` passes. */
export async function waitUntilUp(url: string, server: RunningProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`${server.name} exited (${server.child.exitCode}).`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${server.name} did not answer on ${url} within ${timeoutMs / 1000} s.`);
}

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process from /proc: now, and the kernel's high-water mark since it started. */
export function memoryOf(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssMb: kb("VmRSS") / 1024, peakRssMb: kb("VmHWM") / 1024 };
}

/**
 * The per-person ceilings (lib/dal/limits.ts; docs/production.md: "Limits") lifted: a benchmark or a test suite is one agent
 * selling and reading far faster than any person, which is exactly what the ceilings stop.
 */
export const LIMITS_LIFTED = {
  SALES_PER_AGENT_PER_MINUTE: "10000",
  KNOWN_CUSTOMER_CHECKS_PER_HOUR: "100000",
  HISTORY_PAGES_PER_MINUTE: "10000",
  API_SALES_PER_MINUTE: "100000",
  API_READS_PER_MINUTE: "1000000",
} as const;
