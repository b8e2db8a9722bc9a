import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildIfNeeded } from "../scripts/build-if-needed";
import { startTestPostgres, type TestPostgres } from "../scripts/test-postgres";
import { killEveryApp } from "./lib/app-server";
import { measureDatabase, type DatabaseFigures, type RunSettings } from "./lib/history-database";
import { historySection, SECTION_END, SECTION_START } from "./lib/history-report";

// The supervisor's workspace at a million sales, through the running app (`npm run bench` runs it after the
// submission bench; alone: `npm run bench:history`). Each database is built from empty each run, as the app writes
// a ledger (bench/lib/history-database.ts); the figures go to bench/results/history.json and to their own section
// of bench/results/latest.md. BENCH_HISTORY_SALES sets the ledger's size (default 1,000,000).
const root = join(import.meta.dirname, "..");
const settings: RunSettings = {
  root,
  sales: Number(process.env.BENCH_HISTORY_SALES ?? 1_000_000),
  realSales: 300,
  runs: Number(process.env.BENCH_HISTORY_RUNS ?? 30),
  exportRuns: 3,
};

function writeResults(figures: DatabaseFigures[]) {
  const resultsDir = join(root, "bench/results");
  writeFileSync(join(resultsDir, "history.json"), `${JSON.stringify(figures, null, 2)}\n`);
  const latestPath = join(resultsDir, "latest.md");
  const latest = readFileSync(latestPath, "utf8");
  const section = historySection(
    figures,
    `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
  );
  const start = latest.indexOf(SECTION_START);
  const end = latest.indexOf(SECTION_END);
  writeFileSync(
    latestPath,
    start >= 0 && end > start
      ? `${latest.slice(0, start)}${section}${latest.slice(end + SECTION_END.length)}`
      : `${latest.trimEnd()}\n\n${section}\n`,
  );
  console.log(`\n${section}`);
}

let postgres: TestPostgres | undefined;

async function main() {
  buildIfNeeded(root);
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const figures: DatabaseFigures[] = [];
  console.log(`\n▸ PGlite: a ledger of ${settings.sales.toLocaleString("en-US")} sales`);
  figures.push(await measureDatabase("PGlite", undefined, settings));
  // Written as each database is done: a failure in the next one does not take this one's half hour with it.
  writeResults(figures);
  postgres = await startTestPostgres();
  if (postgres) {
    try {
      console.log(`\n▸ PostgreSQL: a ledger of ${settings.sales.toLocaleString("en-US")} sales`);
      figures.push(await measureDatabase("PostgreSQL", postgres.url, settings));
    } finally {
      postgres.stop();
    }
  }
  writeResults(figures);
}

// Ctrl-C or a stop: what this run started goes with it (the import, a child process, is killed as this one exits).
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
await main();
