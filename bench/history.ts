import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { appNodeOptions } from "../scripts/app-node-options";
import { startTestPostgres } from "../scripts/test-postgres";

// The supervisor's workspace at a million sales (`npm run bench` runs it after the submission bench; alone:
// `npm run bench:history`). Each database gets its own process (bench/history-worker.ts); the figures go to
// bench/results/history.json and to their own section of bench/results/latest.md. BENCH_HISTORY_SALES sets the
// ledger's size (default 1,000,000); the PGlite ledger is kept in .tmp/bench-history-pglite between runs.
const root = join(import.meta.dirname, "..");
const SALES = Number(process.env.BENCH_HISTORY_SALES ?? 1_000_000);
const TARGETS = { pageP95Ms: 150, exportRowsPerSecond: 50_000, exportRssRiseMb: 50 };
const SECTION_START = "<!-- history bench -->";
const SECTION_END = "<!-- /history bench -->";

interface Timing {
  name: string;
  p50Ms: number;
  p95Ms: number;
}

interface DatabaseFigures {
  database: string;
  sales: number;
  results: Timing[];
  before: Timing[];
  /** The median of the export's runs (rows/s of each in `runsRowsPerSecond`), and the largest RSS rise of any. */
  exported: {
    rows: number;
    megabytes: number;
    seconds: number;
    rowsPerSecond: number;
    runsRowsPerSecond: number[];
    rssRiseMb: number;
  };
  /** The machine's 1-minute load average after the run: on two cores, anything near 2 or above is contention. */
  loadAverage?: number;
}

function runWorker(name: string, env: Record<string, string>): Promise<DatabaseFigures> {
  console.log(`\n▸ ${name}: a ledger of ${SALES.toLocaleString("en-US")} sales`);
  const child = spawn(
    join(root, "node_modules/.bin/tsx"),
    ["--conditions=react-server", "bench/history-worker.ts"],
    {
      cwd: root,
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: "1",
        PARTNER_API_BASE_URL: "",
        LOG_FILE: join(root, ".tmp/bench-history.log"),
        BENCH_HISTORY_NAME: name,
        BENCH_HISTORY_SALES: String(SALES),
        // The heap the app server runs with (npm start): the export's RSS is measured as in production.
        NODE_OPTIONS: appNodeOptions(process.env.NODE_OPTIONS),
        ...env,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => {
      const line = stdout.split("\n").find((candidate) => candidate.startsWith('{"sales"'));
      if (code !== 0 || !line) reject(new Error(`The ${name} bench failed (exit ${code}).`));
      else {
        const figures = JSON.parse(line) as Omit<DatabaseFigures, "database">;
        resolve({ database: name, ...figures, loadAverage: loadavg()[0] });
      }
    });
  });
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const mark = (ok: boolean) => (ok ? "✅" : "❌");

function report(figures: DatabaseFigures[], when: string): string {
  const lines = [
    SECTION_START,
    "## The supervisor's workspace at a million sales",
    "",
    `${when}. ${figures[0]!.sales.toLocaleString("en-US")} sales over 18 months and 200 agents, generated in bulk; ` +
      "each figure is the server's time for the data of one page (the functions the page calls, in-process, " +
      "rendering excluded), 30 runs after 3 warm-ups. Targets: p95 ≤ 150 ms a page; the full export ≥ 50,000 " +
      "rows/s with the process's RSS rising ≤ 50 MB. The machine's load average (1 minute) after each " +
      `database's run: ${figures.map((figure) => `${figure.database} ${figure.loadAverage?.toFixed(1) ?? "?"}`).join(", ")} ` +
      "(two cores: other work on the machine shows in the p95s).",
    "",
    `| page | ${figures.map((figure) => `${figure.database} p50 | ${figure.database} p95`).join(" | ")} |`,
    `| --- | ${figures.map(() => "---: | ---:").join(" | ")} |`,
    ...figures[0]!.results.map(
      (result, index) =>
        `| ${result.name} | ${figures
          .map((figure) => {
            const timing = figure.results[index]!;
            return `${ms(timing.p50Ms)} | ${ms(timing.p95Ms)} ${mark(timing.p95Ms <= TARGETS.pageP95Ms)}`;
          })
          .join(" | ")} |`,
    ),
    "",
    "| full export (median of 3 runs) | rows | MB | seconds | rows/s | each run, rows/s | RSS rise (largest) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...figures.map(
      ({ database, exported }) =>
        `| ${database} | ${exported.rows.toLocaleString("en-US")} | ${exported.megabytes.toFixed(0)} | ` +
        `${exported.seconds.toFixed(1)} | ${Math.round(exported.rowsPerSecond).toLocaleString("en-US")} ` +
        `${mark(exported.rowsPerSecond >= TARGETS.exportRowsPerSecond)} | ` +
        `${exported.runsRowsPerSecond.map((rate) => Math.round(rate).toLocaleString("en-US")).join(", ")} | ` +
        `${exported.rssRiseMb.toFixed(0)} MB ` +
        `${mark(exported.rssRiseMb <= TARGETS.exportRssRiseMb)} |`,
    ),
    "",
    "What the plans showed (`EXPLAIN ANALYZE` on the PGlite ledger) and what was chosen:",
    "",
    "- The first page reads 51 rows backwards off `sales_created_idx` (keyset on creation time and " +
      "`submissionId`); a page deep in the past does the same from the cursor's row (an InitPlan on the primary key). " +
      "Its counts were a sequential scan of the ledger (the before table); they now come from `sale_day_counts`.",
    "- One agent: `sales_agent_created_idx` (agent, creation time, `submissionId`, status), so the agent's page " +
      "and counts per status are read from the index; one status: `sales_status_created_idx`.",
    "- Part of a name: the trigram index on `customer_name_folded`. A rare name is a bitmap scan of that index; " +
      "a common one (1 sale in 15) the planner reads newest first off `sales_created_idx` with the match as a " +
      "filter (about 1,600 rows for 51 matches). Folding each row's name at search time (`translate()`) cost " +
      "about 17 µs a row in PGlite, so the folded name is stored as the sale is written. Counting a common " +
      'name\'s 65,000 matches took seconds: a search is counted up to 1,000 ("mais de 1.000").',
    "- CPF, phone and the partner's id are expression indexes on the request; protocol and `submissionId` are " +
      "unique keys; part of an e-mail is a trigram index.",
    "",
    "Before (what the same questions cost without this change's day counts and trigram index):",
    "",
    `| before | ${figures.map((figure) => `${figure.database} p95`).join(" | ")} |`,
    `| --- | ${figures.map(() => "---:").join(" | ")} |`,
    ...figures[0]!.before.map(
      (timing, index) =>
        `| ${timing.name} | ${figures.map((figure) => ms(figure.before[index]!.p95Ms)).join(" | ")} |`,
    ),
    SECTION_END,
  ];
  return lines.join("\n");
}

async function main() {
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const figures: DatabaseFigures[] = [];
  figures.push(
    await runWorker("PGlite", {
      DATABASE_URL: "",
      DATA_DIR: join(root, `.tmp/bench-history-pglite-${SALES}`),
    }),
  );
  const postgres = await startTestPostgres();
  if (postgres) {
    try {
      figures.push(
        await runWorker("PostgreSQL", {
          DATABASE_URL: postgres.url,
          DATA_DIR: join(root, ".tmp/bench-history-pg"),
        }),
      );
    } finally {
      postgres.stop();
    }
  }
  const resultsDir = join(root, "bench/results");
  writeFileSync(join(resultsDir, "history.json"), `${JSON.stringify(figures, null, 2)}\n`);
  const latestPath = join(resultsDir, "latest.md");
  const latest = readFileSync(latestPath, "utf8");
  const section = report(figures, `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`);
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

await main();
