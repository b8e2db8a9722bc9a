import { spawn } from "node:child_process";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one of the operator's tools (`scripts/<name>.ts`, as `npm run <name> -- …` does) against the database `env`
 * names. Asynchronous on purpose: with PGlite, the calling test process serves the tool's queries through its
 * socket.
 */
export function runTool(
  name: "agents" | "customers" | "audit" | "api-keys" | "webhooks" | "evidence",
  args: string[],
  env: Record<string, string>,
  input = "",
) {
  const child = spawn(
    join(root, "node_modules/.bin/tsx"),
    ["--conditions=react-server", `scripts/${name}.ts`, ...args],
    {
      cwd: root,
      env: { ...process.env, PARTNER_API_BASE_URL: "", DATABASE_URL: "", ...env },
      timeout: 60_000,
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise<CliResult>((resolve) =>
    child.on("close", (status) => resolve({ status, stdout, stderr })),
  );
}
