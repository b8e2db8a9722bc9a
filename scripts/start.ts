import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import nextEnv from "@next/env";
import { DEMO_ACCOUNTS, DEMO_PASSWORD } from "../lib/auth/demo-account-list";
import { ConfigError, parseConfig, type Config } from "../lib/config/parse";
import { saleDeadlineMs } from "../lib/lifecycle";
import { formatJsonLine } from "../sandbox/log";
import { createSandbox, type Sandbox } from "../sandbox/server";
import { appNodeOptions } from "./app-node-options";
import { buildIfNeeded } from "./build-if-needed";
import { jsonLines } from "./json-lines";

const root = join(import.meta.dirname, "..");
// Read first: npm killed while the app builds would otherwise leave init recorded as the parent.
const parentPid = process.ppid;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function loadConfig(): Config {
  // The same .env files `next start` reads, so what is checked here is what the app will run with.
  nextEnv.loadEnvConfig(root, false, { info: () => {}, error: console.error });
  try {
    return parseConfig(process.env, root);
  } catch (error) {
    if (error instanceof ConfigError) fail(`Configuration error: ${error.message}`);
    throw error;
  }
}

/** How long the app may go without answering `starting` (or anything) before the start gives up. */
const SILENCE_LIMIT_MS = 120_000;

/**
 * Waits for readiness. An app that says `starting` (its database opening, or replaying its write-ahead log after
 * a crash: minutes at a large one) is waited for as long as it says so; one that does not answer, or answers
 * anything else, for two minutes.
 */
async function waitUntilReady(url: string, isAlive: () => boolean): Promise<boolean> {
  let deadline = Date.now() + SILENCE_LIMIT_MS;
  while (Date.now() < deadline && isAlive()) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return true;
      const { status } = (await response.json().catch(() => ({}))) as { status?: string };
      if (status === "starting") deadline = Date.now() + SILENCE_LIMIT_MS;
    } catch {
      // not listening yet, or busy (a VACUUM holds the embedded database's thread for seconds)
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

async function main() {
  const config = loadConfig();
  try {
    buildIfNeeded(root);
  } catch (error) {
    fail((error as Error).message);
  }

  if (config.logFile) mkdirSync(dirname(config.logFile), { recursive: true });
  const logFile = config.logFile ? createWriteStream(config.logFile, { flags: "a" }) : undefined;
  const writer = (stream: NodeJS.WriteStream) => (chunk: string | Buffer) => {
    stream.write(chunk);
    logFile?.write(chunk);
  };

  let sandbox: Sandbox | undefined;
  let sandboxUrl: string | undefined;
  if (config.mode === "sandbox") {
    sandbox = createSandbox({
      clientId: config.provider.clientId,
      clientSecret: config.provider.clientSecret,
      ...(config.plans ? { plans: config.plans } : {}),
      log: (entry) => writer(process.stdout)(formatJsonLine(entry)),
    });
    try {
      sandboxUrl = await sandbox.listen(config.sandboxPort, "127.0.0.1");
    } catch (error) {
      fail(`Cannot start the sandbox upstream on port ${config.sandboxPort}: ${(error as Error).message}`);
    }
  }

  // Next.js behind our first hop, which records each connection's peer (scripts/server.mjs).
  const app = spawn(
    process.execPath,
    [join(root, "scripts/server.mjs"), "--port", String(config.port), "--exit-with-parent"],
    {
      cwd: root,
      stdio: ["inherit", "pipe", "pipe"],
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: "1",
        NODE_OPTIONS: appNodeOptions(process.env.NODE_OPTIONS),
      },
    },
  );
  const appOutput = jsonLines("info", writer(process.stdout));
  const appErrors = jsonLines("error", writer(process.stderr));
  app.stdout.on("data", (chunk: Buffer) => appOutput.push(chunk));
  app.stderr.on("data", (chunk: Buffer) => appErrors.push(chunk));
  let appRunning = true;
  let stopping = false;
  // The app's end, once its last lines (server.drained…) are out of its pipes: they may still be there when it
  // exits, and would be lost with this process. A second at most, should something else hold the pipes open.
  const closed = new Promise<void>((resolve) => app.once("close", () => resolve()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    app.once("exit", (code, signal) => {
      appRunning = false;
      const done = () => resolve({ code, signal });
      void Promise.race([closed, new Promise((wait) => setTimeout(wait, 1_000).unref())]).then(done);
    }),
  );

  // The app drains on SIGTERM (scripts/server.mjs): it may wait DRAIN_DELAY_SECONDS, then for a sale's deadline,
  // then a few seconds for its last writes. The sandbox stops after it, so a sale in flight still gets its answer.
  // server.mjs's own limits after the drain: 5 s for its last writes, 10 s to close the database; and a margin.
  const drainMs = config.drainDelayMs + saleDeadlineMs(config.provider.timeoutMs) + 5_000 + 10_000 + 5_000;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    let killer: NodeJS.Timeout | undefined;
    if (appRunning && app.pid) {
      app.kill("SIGTERM");
      killer = setTimeout(() => app.pid && app.kill("SIGKILL"), drainMs);
    }
    await ended;
    clearTimeout(killer);
    await sandbox?.close();
    process.exit(code);
  };

  void ended.then(({ code, signal }) => {
    appOutput.flush();
    appErrors.flush();
    if (!stopping) {
      process.stderr.write(`The app stopped (${signal ?? `exit ${code}`}).\n`);
      void stop(code || 1);
    }
  });
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  process.on("SIGHUP", () => void stop(0));
  // npm killed (SIGKILL never reaches this process): the app is stopped too, not left running as an orphan. The
  // npm script execs this process, so its parent is npm itself.
  setInterval(() => process.ppid !== parentPid && void stop(1), 500).unref();
  // The terminal or the pipe we write to is gone: stop, rather than fail every write.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => void stop(1));

  const appUrl = `http://localhost:${config.port}`;
  if (!(await waitUntilReady(`${appUrl}/api/health`, () => appRunning))) {
    if (appRunning) {
      process.stderr.write(`The app did not become ready on ${appUrl}: stopping it.\n`);
      await stop(1);
    }
    return;
  }
  const lines = [
    "",
    `  Partner Sales is running on ${appUrl}`,
    config.mode === "sandbox"
      ? `  Sandbox upstream (stand-in for the provider) on ${sandboxUrl}`
      : `  Upstream: ${config.provider.baseUrl}`,
    ...(config.mode === "sandbox"
      ? [
          "",
          `  Demo accounts (password ${DEMO_PASSWORD}):`,
          ...DEMO_ACCOUNTS.map((account) => `    ${account.email.padEnd(24)} ${account.role}`),
        ]
      : []),
    "",
    "  Press Ctrl-C to stop.",
    "",
  ];
  console.log(lines.join("\n"));
}

void main();
