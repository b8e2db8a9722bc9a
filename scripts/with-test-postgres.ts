import { spawnSync } from "node:child_process";
import { startTestPostgres } from "./test-postgres";

// Runs a command with TEST_DATABASE_URL pointing at a throwaway PostgreSQL: `tsx scripts/with-test-postgres.ts vitest run lib/auth`.
const postgres = await startTestPostgres();
const [command = "vitest", ...args] = process.argv.slice(2);
const result = spawnSync(`node_modules/.bin/${command}`, args, {
  stdio: "inherit",
  env: { ...process.env, ...(postgres ? { TEST_DATABASE_URL: postgres.url } : {}) },
});
postgres?.stop();
process.exit(result.status ?? 1);
