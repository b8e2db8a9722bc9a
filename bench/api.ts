import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildIfNeeded } from "../scripts/build-if-needed";
import { writeApiResults, type ApiFigures } from "./lib/api-report";
import { onEachDatabase } from "./lib/each-database";
import { measureApiAlone, type RunSettings } from "./lib/history-database";

// Issue 34's figures alone (`npx tsx bench/api.ts`; `npm run bench` takes them in bench/history.ts, on the ledger it
// has just timed): on each database a ledger built as bench/history.ts builds it, then bench/api-worker.ts on it,
// the app stopped: the API key check beside the session check, the changes feed and the search. The figures go to
// bench/results/api.json and to their own section of bench/results/latest.md. BENCH_HISTORY_SALES sets the
// ledger's size (default 1,000,000), BENCH_API_ROUNDS the checks' rounds (default 5).
const root = join(import.meta.dirname, "..");
const settings: RunSettings = {
  root,
  sales: Number(process.env.BENCH_HISTORY_SALES ?? 1_000_000),
  realSales: 300,
  runs: 0,
  exportRuns: 0,
};

async function main() {
  buildIfNeeded(root);
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const figures: ApiFigures[] = [];
  await onEachDatabase(
    async (database, databaseUrl) => {
      console.log(`\n▸ ${database}: a ledger of ${settings.sales.toLocaleString("en-US")} sales`);
      figures.push(await measureApiAlone(database, databaseUrl, settings));
    },
    () =>
      writeApiResults(
        root,
        figures,
        `Measured by bench/api.ts, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
      ),
  );
}

await main();
