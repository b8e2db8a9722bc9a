import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LIMITS_LIFTED, startProcess, waitUntilUp, type RunningProcess } from "../../bench/lib/processes";
import { appNodeOptions } from "../../scripts/app-node-options";
import { E2E_PORTS, PASSWORDS_ONLY } from "./environment";

export interface AppInstance {
  /** Where the browser reaches it (its AUTH_URL). */
  url: string;
  /** Its own data directory: the embedded database (the agents CLI takes it as DATA_DIR) and its log. */
  dataDir: string;
  log(): string;
  /** Its process, for signals of a test's own (SIGTERM to see it drain, SIGKILL to see it die). */
  server: RunningProcess;
  stop(): Promise<void>;
}

/** The instance's environment: `env` over the e2e defaults, none of the developer's sign-in or embedding. */
function instanceEnv(port: number, url: string, dataDir: string, env: Record<string, string>) {
  return {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_OPTIONS: appNodeOptions(undefined),
    PORT: String(port),
    SANDBOX_PORT: String(E2E_PORTS.sandbox),
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    PARTNER_API_BASE_URL: "",
    AUTH_URL: url,
    EMBED_ALLOWED_ORIGINS: "",
    EMBED_SSO_SECRET: "",
    EMBED_PORTALS_FILE: "",
    TRUSTED_PROXIES: "",
    LOG_FILE: "",
    ...LIMITS_LIFTED,
    ...PASSWORDS_ONLY,
    ...env,
  };
}

/**
 * An app server started with `env` that must refuse to start: its exit code and what it wrote, once it has
 * exited (within 60 s, or the test fails there).
 */
export async function refusedStart(
  port: number,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-instance-"));
  const logFile = join(dataDir, "app.log");
  const server = startProcess(
    `app on ${port}`,
    process.execPath,
    ["scripts/server.mjs", "--port", String(port), "--hostname", "127.0.0.1"],
    { cwd: process.cwd(), logFile, env: instanceEnv(port, `http://127.0.0.1:${port}`, dataDir, env) },
  );
  const timer = setTimeout(() => server.child.kill("SIGKILL"), 60_000);
  const [code] = (await once(server.child, "exit")) as [number | null];
  clearTimeout(timer);
  const output = readFileSync(logFile, "utf8");
  rmSync(dataDir, { recursive: true, force: true });
  return { code, output };
}

/**
 * Another app server beside the shared e2e one, with configuration of its own: the built app (scripts/server.mjs)
 * on 127.0.0.1:`port`, reached as http://`host`:`port` (its AUTH_URL), on an embedded database in a fresh data
 * directory unless `env` names a DATABASE_URL, using the shared sandbox upstream. Nothing of the developer's
 * environment about sign-in or embedding leaks in.
 */
export async function startAppInstance(
  port: number,
  env: Record<string, string>,
  { host = "localhost" }: { host?: "localhost" | "127.0.0.1" } = {},
): Promise<AppInstance> {
  const url = `http://${host}:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-instance-"));
  const logFile = join(dataDir, "app.log");
  const server: RunningProcess = startProcess(
    `app on ${port}`,
    process.execPath,
    ["scripts/server.mjs", "--port", String(port), "--hostname", "127.0.0.1"],
    { cwd: process.cwd(), logFile, env: instanceEnv(port, url, dataDir, env) },
  );
  // A worker that dies before its afterAll (a crash, a timeout) must not leave the server running.
  const stopOnExit = () => server.child.kill("SIGKILL");
  process.once("exit", stopOnExit);
  await waitUntilUp(`http://127.0.0.1:${port}/api/health`, server);
  return {
    url,
    dataDir,
    log: () => readFileSync(logFile, "utf8"),
    server,
    async stop() {
      process.off("exit", stopOnExit);
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
