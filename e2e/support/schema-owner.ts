import { spawn } from "node:child_process";
import { join } from "node:path";
import { E2E_DATA_DIR } from "./environment";

const root = join(import.meta.dirname, "../..");

/** Runs SQL statements on the running e2e app's database as its owner (schema-owner-sql.ts); throws if one fails. */
export function asSchemaOwner(...statements: string[]): Promise<void> {
  const child = spawn(
    join(root, "node_modules/.bin/tsx"),
    ["--conditions=react-server", "e2e/support/schema-owner-sql.ts", ...statements],
    {
      cwd: root,
      env: { ...process.env, PARTNER_API_BASE_URL: "", DATABASE_URL: "", DATA_DIR: E2E_DATA_DIR },
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) =>
    child.on("close", (status) =>
      status === 0 ? resolve() : reject(new Error(`SQL as the schema's owner failed (${status}): ${stderr}`)),
    ),
  );
}
