import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildIfNeeded } from "../scripts/build-if-needed";
import { writeApiResults, type ApiFigures } from "./lib/api-report";
import { onEachDatabase } from "./lib/each-database";
import { measureDatabase, type DatabaseFigures, type RunSettings } from "./lib/history-database";
import { historySection, SECTION_END, SECTION_START } from "./lib/history-report";
import { writeLatestSection } from "./lib/latest-section";

// The supervisor's workspace at a million sales, through the running app (`npm run bench` runs it after the
// submission bench; alone: `npm run bench:history`). Each database is built from empty each run, as the app writes
// a ledger (bench/lib/history-database.ts); the figures go to bench/results/history.json and to their own section
// of bench/results/latest.md. Issue 34's API figures are taken on the same ledger (bench/api.ts says how).
// BENCH_HISTORY_SALES sets the ledger's size (default 1,000,000).
const root = join(import.meta.dirname, "..");
const settings: RunSettings = {
  root,
  sales: Number(process.env.BENCH_HISTORY_SALES ?? 1_000_000),
  realSales: 300,
  runs: Number(process.env.BENCH_HISTORY_RUNS ?? 30),
  exportRuns: 3,
};

const measuredAt = () => `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`;

function writeResults(figures: DatabaseFigures[], api: ApiFigures[]) {
  const resultsDir = join(root, "bench/results");
  writeFileSync(join(resultsDir, "history.json"), `${JSON.stringify(figures, null, 2)}\n`);
  const section = historySection(figures, measuredAt());
  writeLatestSection(root, section, { start: SECTION_START, end: SECTION_END });
  console.log(`\n${section}`);
  writeApiResults(root, api, measuredAt());
}

async function main() {
  buildIfNeeded(root);
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const figures: DatabaseFigures[] = [];
  const api: ApiFigures[] = [];
  await onEachDatabase(
    async (database, databaseUrl) => {
      console.log(`\n▸ ${database}: a ledger of ${settings.sales.toLocaleString("en-US")} sales`);
      const measured = await measureDatabase(database, databaseUrl, settings);
      figures.push(measured.history);
      api.push(measured.api);
    },
    () => writeResults(figures, api),
  );
}

await main();
