import { spawn } from "node:child_process";

/** How a worker loads the app's server-only modules: as React Server Components, or only `server-only` itself. */
export const SERVER_CONDITIONS = {
  reactServer: ["--conditions=react-server"],
  serverOnly: ["--import", "./bench/lib/server-only.mjs"],
};

/**
 * One of the bench's workers (bench/*-worker.ts) in a process of its own, with `env` over this one's: the JSON line
 * it prints last. Node itself with tsx's loader (not the tsx launcher, whose child would outlive a SIGKILL to it);
 * killed if this process exits first.
 */
export function runWorker<T>(
  root: string,
  script: string,
  env: Record<string, string>,
  conditions: string[] = SERVER_CONDITIONS.reactServer,
): Promise<T> {
  const child = spawn(process.execPath, ["--import", "tsx", ...conditions, script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  const stopOnExit = () => child.kill("SIGKILL");
  process.once("exit", stopOnExit);
  return new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => {
      process.off("exit", stopOnExit);
      const line = stdout.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !line.startsWith("{"))
        reject(new Error(`${script} failed (${signal ?? `exit ${code}`}).`));
      else resolve(JSON.parse(line) as T);
    });
  });
}
