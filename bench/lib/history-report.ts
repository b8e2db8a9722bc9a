import type { DatabaseFigures } from "./history-database";

export const HISTORY_TARGETS = {
  pageP95Ms: 150,
  readyAfterCleanStopMs: 30_000,
  exportRowsPerSecond: 50_000,
  exportRssRiseMb: 50,
};
export const SECTION_START = "<!-- history bench -->";
export const SECTION_END = "<!-- /history bench -->";

const ms = (value: number) => `${value.toFixed(1)} ms`;
const seconds = (valueMs: number) => `${(valueMs / 1000).toFixed(1)} s`;
const count = (value: number) => Math.round(value).toLocaleString("en-US");
const mark = (ok: boolean) => (ok ? "✅" : "❌");

/** One row per figure, one column per database. */
function table(
  header: string,
  figures: DatabaseFigures[],
  rows: [string, (figure: DatabaseFigures) => string][],
) {
  return [
    `| ${header} | ${figures.map((figure) => figure.database).join(" | ")} |`,
    `| --- | ${figures.map(() => "---:").join(" | ")} |`,
    ...rows.map(([name, cell]) => `| ${name} | ${figures.map(cell).join(" | ")} |`),
  ];
}

function upkeepLine({ upkeep }: DatabaseFigures): string {
  if (upkeep.pauses === 0) return "none logged";
  const tasks = new Map<string, number>();
  for (const pause of upkeep.tasks) {
    const task = pause.task.split(" ")[0]!;
    tasks.set(task, (tasks.get(task) ?? 0) + 1);
  }
  const longest = upkeep.tasks.find((pause) => pause.ms === upkeep.maxMs)!;
  const duringPages =
    upkeep.duringPages === 0 ? "none" : `${upkeep.duringPages}, the longest ${ms(upkeep.duringPagesMaxMs)}`;
  return (
    `${upkeep.pauses} (${[...tasks].map(([task, times]) => `${task} ×${times}`).join(", ")}): longest ` +
    `${ms(upkeep.maxMs)} (${longest.task}), ${seconds(upkeep.totalMs)} in all; while pages were timed: ${duringPages}`
  );
}

/** bench/results/latest.md's section for the supervisor's workspace. */
export function historySection(figures: DatabaseFigures[], when: string): string {
  const [first] = figures as [DatabaseFigures];
  const real = Object.values(first.realSales).reduce((sum, value) => sum + value, 0);
  return [
    SECTION_START,
    `## The supervisor's workspace at ${count(first.sales)} sales, through the running app`,
    "",
    `${when}. How the ledger is built, on an empty database each run, as the app writes one (no ANALYZE, no ` +
      "VACUUM but what the app and the database do themselves: the app's own upkeep, PostgreSQL's autovacuum): " +
      `the app started as \`npm start\` runs it (scripts/server.mjs with its heap cap; the sandbox provider) ` +
      `takes ${real} real sales through \`POST /api/sales\`, accepted, refused by the provider (a customer it ` +
      "already holds on that plan), unknown (its 500) and never sent (a revoked token it would not renew). The " +
      "app is stopped (SIGTERM) and its database opened directly (PGlite with the app's connection module; " +
      "PostgreSQL with `pg`): 200 agents are added as the CLI adds them, and each real sale's outcome is copied " +
      `onto new sales and customers up to ${count(first.sales)}, over 18 months, oldest first, each written as ` +
      "the app writes a sale: its `pending` row in one transaction, its outcome in the next, and for an " +
      "`unknown` sale older than a month a supervisor's settlement with its audit event " +
      "(bench/lib/ledger-writes.ts; 50 sales' transactions to a round trip, each committed on its own).",
    "",
    "How it is measured: the app is started on that ledger and each page asked for over HTTP as a signed-in " +
      "supervisor's browser asks for it, read to its last byte, one request at a time: 3 warm-ups, then 30 runs. " +
      "On PostgreSQL the pages are timed once its autovacuum has caught up with the rows just written (none of " +
      "its thresholds passed, no worker running), as a ledger is served day to day: " +
      `${
        figures
          .filter((figure) => figure.autovacuumSeconds !== undefined)
          .map((figure) => `${seconds(figure.autovacuumSeconds! * 1000)} after the app was ready`)
          .join(", ") || "not measured"
      }. ` +
      "Target: p95 ≤ 150 ms. KB is the page's weight as sent (HTML with its React payload). The machine's load " +
      `average (1 minute) after each database's run: ${figures.map((figure) => `${figure.database} ${figure.loadAverage.toFixed(1)}`).join(", ")} ` +
      "(two cores: other work on the machine shows in the p95s).",
    "",
    `| page | ${figures.map((figure) => `${figure.database} p50 | ${figure.database} p95`).join(" | ")} | KB |`,
    `| --- | ${figures.map(() => "---: | ---:").join(" | ")} | ---: |`,
    ...first.pages.map(
      (page, index) =>
        `| ${page.name} | ${figures
          .map(({ pages }) => {
            const timing = pages[index]!;
            return `${ms(timing.p50Ms)} | ${ms(timing.p95Ms)} ${mark(timing.p95Ms <= HISTORY_TARGETS.pageP95Ms)}`;
          })
          .join(" | ")} | ${count(page.bytes / 1000)} |`,
    ),
    "",
    "Start to ready: from the server process's spawn to the first 200 from `GET /api/health`, so it holds " +
      "whatever the app does before it answers (opening the database, replaying its log after a crash, upkeep it " +
      "runs first). A clean stop is SIGTERM and the process's exit; the crash, SIGKILL to the server's process " +
      "group just after 30 more sales. Target: ≤ 30 s after a clean stop. Upkeep: the app's `db.upkeep` log " +
      "lines over all four starts, each a pause of every request on PGlite.",
    "",
    ...table("start", figures, [
      ["first start on the new ledger", ({ starts }) => seconds(starts.firstMs)],
      [
        "after a clean stop",
        ({ starts }) =>
          `${seconds(starts.afterCleanStopMs)} ${mark(starts.afterCleanStopMs <= HISTORY_TARGETS.readyAfterCleanStopMs)}`,
      ],
      ["after SIGKILL (recovery)", ({ starts }) => seconds(starts.afterKillMs)],
      ["the clean stop itself", ({ starts }) => seconds(starts.cleanStopMs)],
      ["the app's upkeep (`db.upkeep` lines)", upkeepLine],
    ]),
    "",
    "The import: PGlite through its one connection; PostgreSQL through " +
      `${figures.find((figure) => figure.database === "PostgreSQL")?.import.connections ?? "several"} at once ` +
      "(the throwaway server of scripts/test-postgres.ts, fsync off). The ledger by status is what the app's day " +
      "counts hold after it.",
    "",
    ...table("import", figures, [
      [
        "real sales (status: count)",
        ({ realSales }) =>
          Object.entries(realSales)
            .map(([s, n]) => `${s}: ${n}`)
            .join(", "),
      ],
      ["sales written", ({ import: written }) => count(written.sales)],
      ["transactions", ({ import: written }) => count(written.transactions)],
      ["took", ({ import: written }) => seconds(written.seconds * 1000)],
      ["sales/s", ({ import: written }) => count(written.salesPerSecond)],
      [
        "ledger by status",
        ({ import: written }) =>
          Object.entries(written.statuses)
            .map(([status, sales]) => `${status}: ${count(sales)}`)
            .join(", "),
      ],
      [
        "DATA_DIR after the import → at the end",
        ({ dataDirMb }) =>
          dataDirMb ? `${count(dataDirMb.afterImport)} → ${count(dataDirMb.atEnd)} MB` : "–",
      ],
    ]),
    "",
    "| full export `/sales/export` (median of 3 runs) | rows | MB | seconds | rows/s | each run, rows/s | server RSS rise (largest) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...figures.map(
      ({ database, exported }) =>
        `| ${database} | ${count(exported.rows)} | ${exported.megabytes.toFixed(0)} | ${exported.seconds.toFixed(1)} | ` +
        `${count(exported.rowsPerSecond)} ${mark(exported.rowsPerSecond >= HISTORY_TARGETS.exportRowsPerSecond)} | ` +
        `${exported.runsRowsPerSecond.map(count).join(", ")} | ` +
        `${exported.rssRiseMb.toFixed(0)} MB ${mark(exported.rssRiseMb <= HISTORY_TARGETS.exportRssRiseMb)} |`,
    ),
    SECTION_END,
  ].join("\n");
}
