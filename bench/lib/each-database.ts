import { startTestPostgres, type TestPostgres } from "../../scripts/test-postgres";
import { killEveryApp } from "./app-server";

let postgres: TestPostgres | undefined;

// Ctrl-C or a stop: what this run started goes with it (a worker, a child process, is killed as this one exits).
// Every signal is listened to, not once: tsx passes its own on, and a second one with no listener would end this
// process halfway through.
let stopping = false;
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void killEveryApp()
      .then(() => postgres?.stop())
      .finally(() => process.exit(code));
  });
}

/**
 * `measure` on PGlite, then on a throwaway PostgreSQL server (scripts/test-postgres.ts) when one can be had, stopped
 * afterwards; `done` after each, so that a failure on PostgreSQL does not take PGlite's half hour with it.
 */
export async function onEachDatabase(
  measure: (database: string, databaseUrl: string | undefined) => Promise<void>,
  done: () => void,
): Promise<void> {
  await measure("PGlite", undefined);
  done();
  postgres = await startTestPostgres();
  if (!postgres) return;
  try {
    await measure("PostgreSQL", postgres.url);
    done();
  } finally {
    postgres.stop();
  }
}
