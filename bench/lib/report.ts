import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PageWeight } from "../../e2e/support/page-weight";
import { ADDED_SCRIPT_BUDGET_BYTES } from "../../e2e/support/page-weight";
import type { LighthouseResult } from "./lighthouse";

export interface LoadFigures {
  target: string;
  concurrency: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Median over the rounds. */
  requestsPerSecond: number;
}

type LoadErrors = { status: number | string; count: number }[];

export interface BenchResults {
  ranAt: string;
  commit: string;
  machine: { cpu: string; cores: number; node: string };
  rounds: number;
  pageWeight: {
    baseline: { path: string; gzipBytes: number; files: number };
    emptyNextApp: { gzipBytes: number; files: number };
    pages: {
      path: string;
      gzipBytes: number;
      files: number;
      addedGzipBytes: number;
      ownFiles: { file: PageWeight["scripts"][number]["url"]; gzipBytes: number }[];
    }[];
  };
  lighthouse: LighthouseResult[];
  load: LoadFigures[];
  loadErrors: { target: string; concurrency: number; status: number | string; count: number }[];
  overhead: {
    addedP50MsAtConcurrency1: number;
    proxyAddedP50MsAtConcurrency1: number;
    throughputVsEmptyRouteAtConcurrency50: number;
    /** The same app on PostgreSQL, when the run had one. */
    postgresqlAddedP50MsAtConcurrency1?: number;
    postgresqlThroughputVsEmptyRouteAtConcurrency50?: number;
  };
  /**
   * Requests the app sent to its database per accepted sale (its `partner_sales_db_round_trips_total`; the warm-up
   * sales and the app's background work in the same seconds included). Absent from runs before it was counted.
   */
  dbRoundTripsPerSale?: { target: string; concurrency: number; roundTripsPerSale: number }[];
  tokens: {
    perThousandSales: {
      sales: number;
      errors: LoadErrors;
      tokenExchanges: number;
      includingBootWarmUp: number;
    };
    concurrentAfterRevoke: { sales: number; errors: LoadErrors; tokenExchanges: number };
    concurrentColdClient: { sales: number; accepted: number; tokenExchanges: number };
  };
  memory: {
    peakRssDuringLoadMb: number;
    peakRssWholeRunMb: number;
    /** The same app on PostgreSQL, when the run had one. */
    postgresql?: { peakRssDuringLoadMb: number; peakRssWholeRunMb: number };
  };
}

interface Check {
  what: string;
  target: string;
  measured: string;
  met: boolean;
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
const ms = (value: number) => `${value.toFixed(2)} ms`;

function checks(results: BenchResults): Check[] {
  const list: Check[] = [];
  for (const page of results.pageWeight.pages) {
    list.push({
      what: `JavaScript \`${page.path}\` adds over the framework baseline (gzip)`,
      target: `≤ ${kB(ADDED_SCRIPT_BUDGET_BYTES)}`,
      measured: kB(page.addedGzipBytes),
      met: page.addedGzipBytes <= ADDED_SCRIPT_BUDGET_BYTES,
    });
  }
  for (const page of results.lighthouse.filter((result) => result.preset === "desktop")) {
    list.push(
      {
        what: `Lighthouse performance \`${page.path}\``,
        target: "≥ 98",
        measured: String(page.performance),
        met: page.performance >= 98,
      },
      {
        what: `Lighthouse accessibility \`${page.path}\``,
        target: "100",
        measured: String(page.accessibility),
        met: page.accessibility === 100,
      },
      {
        what: `Lighthouse best practices \`${page.path}\``,
        target: "100",
        measured: String(page.bestPractices),
        met: page.bestPractices === 100,
      },
    );
  }
  const { overhead, tokens, memory } = results;
  // Issue 37's targets: each database against the framework's own floor, measured side by side in this run.
  const ratio = (value: number) => `${value.toFixed(2)}×`;
  list.push(
    {
      what: "p50 the app adds over the direct call, concurrency 1 (embedded database)",
      target: "≤ 2 ms",
      measured: ms(overhead.addedP50MsAtConcurrency1),
      met: overhead.addedP50MsAtConcurrency1 <= 2,
    },
    {
      what: "App throughput ÷ empty Next route's, concurrency 50 (embedded database)",
      target: "≥ 0.35×",
      measured: ratio(overhead.throughputVsEmptyRouteAtConcurrency50),
      met: overhead.throughputVsEmptyRouteAtConcurrency50 >= 0.35,
    },
  );
  if (overhead.postgresqlAddedP50MsAtConcurrency1 !== undefined) {
    list.push({
      what: "p50 the app adds over the direct call, concurrency 1 (PostgreSQL)",
      target: "≤ 1.5 ms",
      measured: ms(overhead.postgresqlAddedP50MsAtConcurrency1),
      met: overhead.postgresqlAddedP50MsAtConcurrency1 <= 1.5,
    });
  }
  if (overhead.postgresqlThroughputVsEmptyRouteAtConcurrency50 !== undefined) {
    list.push({
      what: "App throughput ÷ empty Next route's, concurrency 50 (PostgreSQL)",
      target: "≥ 0.50×",
      measured: ratio(overhead.postgresqlThroughputVsEmptyRouteAtConcurrency50),
      met: overhead.postgresqlThroughputVsEmptyRouteAtConcurrency50 >= 0.5,
    });
  }
  list.push(
    {
      what: `Token exchanges for the first ${tokens.perThousandSales.sales} sales (boot warm-up included)`,
      target: "1",
      measured: String(tokens.perThousandSales.tokenExchanges),
      met: tokens.perThousandSales.tokenExchanges === 1,
    },
    {
      what: `Token exchanges, ${tokens.concurrentColdClient.sales} concurrent sales on a cold client`,
      target: "1",
      measured: String(tokens.concurrentColdClient.tokenExchanges),
      met: tokens.concurrentColdClient.tokenExchanges === 1,
    },
    {
      what: `Token exchanges, ${tokens.concurrentAfterRevoke.sales} concurrent app sales after the provider revoked the token`,
      target: "1",
      measured: String(tokens.concurrentAfterRevoke.tokenExchanges),
      met: tokens.concurrentAfterRevoke.tokenExchanges === 1,
    },
    {
      what: "App server peak RSS, embedded database (whole run: load, pages, Lighthouse)",
      target: "≤ 250 MB",
      measured: `${memory.peakRssWholeRunMb.toFixed(0)} MB`,
      met: memory.peakRssWholeRunMb <= 250,
    },
  );
  if (memory.postgresql) {
    list.push({
      what: "App server peak RSS, PostgreSQL (whole run)",
      target: "≤ 150 MB",
      measured: `${memory.postgresql.peakRssWholeRunMb.toFixed(0)} MB`,
      met: memory.postgresql.peakRssWholeRunMb <= 150,
    });
  }
  return list;
}

/** What makes a run's figures untrustworthy: wrong answers under load. */
function invalidities(results: BenchResults): string[] {
  const problems = results.loadErrors.map(
    (error) => `${error.target} c=${error.concurrency}: ${error.count} answers with ${error.status}`,
  );
  for (const [name, errors] of [
    ["1,000 sales", results.tokens.perThousandSales.errors],
    ["sales after revoke", results.tokens.concurrentAfterRevoke.errors],
  ] as const) {
    for (const error of errors) problems.push(`${name}: ${error.count} answers with ${error.status}`);
  }
  const cold = results.tokens.concurrentColdClient;
  if (cold.accepted !== cold.sales) problems.push(`cold client: ${cold.accepted} of ${cold.sales} accepted`);
  return problems;
}

function table(headers: string[], rows: (string | number)[][]): string {
  return [
    `| ${headers.join(" | ")} |`,
    `| ${headers.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}

function keyFigures(results: BenchResults): [string, string][] {
  const form = results.pageWeight.pages.find((page) => page.path === "/");
  const app1 = results.load.find((row) => row.target === "app" && row.concurrency === 1);
  const app50 = results.load.find((row) => row.target === "app" && row.concurrency === 50);
  return [
    ["Form page JS over baseline (gzip)", form ? kB(form.addedGzipBytes) : "–"],
    ["App p50 added over direct, c=1", ms(results.overhead.addedP50MsAtConcurrency1)],
    ["App p50 / p99, c=1", app1 ? `${ms(app1.p50Ms)} / ${ms(app1.p99Ms)}` : "–"],
    ["App p50 / p99, c=50", app50 ? `${ms(app50.p50Ms)} / ${ms(app50.p99Ms)}` : "–"],
    ["App req/s, c=50", app50 ? app50.requestsPerSecond.toFixed(0) : "–"],
    [
      "App ÷ empty route throughput, c=50",
      `${results.overhead.throughputVsEmptyRouteAtConcurrency50.toFixed(2)}×`,
    ],
    ["App peak RSS, whole run", `${results.memory.peakRssWholeRunMb.toFixed(0)} MB`],
    ...databaseFigures(results),
    [
      "PostgreSQL: p50 added over direct, c=1",
      orDash(results.overhead.postgresqlAddedP50MsAtConcurrency1, ms),
    ],
    [
      "PostgreSQL: ÷ empty route throughput, c=50",
      orDash(
        results.overhead.postgresqlThroughputVsEmptyRouteAtConcurrency50,
        (value) => `${value.toFixed(2)}×`,
      ),
    ],
    [
      "PostgreSQL: app peak RSS, whole run",
      orDash(results.memory.postgresql?.peakRssWholeRunMb, (value) => `${value.toFixed(0)} MB`),
    ],
  ];
}

/** A run without PostgreSQL has none of its figures. */
const orDash = (value: number | undefined, format: (value: number) => string) =>
  value === undefined ? "–" : format(value);

function databaseFigures(results: BenchResults): [string, string][] {
  return (results.dbRoundTripsPerSale ?? []).map((row) => [
    `${row.target === "app" ? "App" : "PostgreSQL"}: db round trips per sale, c=${row.concurrency}`,
    row.roundTripsPerSale.toFixed(2),
  ]);
}

/** Earlier runs to compare with: `bench/results/before-N.json` and `after-N.json`, each labelled. */
interface Comparison {
  before: { label: string; results: BenchResults }[];
  after: { label: string; results: BenchResults }[];
}

function comparisonRuns(directory: string): Comparison {
  const runs = (side: "before" | "after") =>
    readdirSync(directory)
      .filter((name) => new RegExp(`^${side}-\\d+\\.json$`).test(name))
      .sort((a, b) => Number(a.replace(/\D/g, "")) - Number(b.replace(/\D/g, "")))
      .map((name) => ({
        label: name.replace(".json", "").replace("-", " "),
        results: JSON.parse(readFileSync(join(directory, name), "utf8")) as BenchResults,
      }));
  return { before: runs("before"), after: runs("after") };
}

function markdown(results: BenchResults, list: Check[], problems: string[], comparison: Comparison): string {
  const lines: string[] = [
    "# Benchmark results",
    "",
    `Written by \`npm run bench\` on ${results.ranAt} at commit ${results.commit}: ${results.machine.cpu}, ` +
      `${results.machine.cores} cores, Node ${results.machine.node}. Everything below was measured side by side ` +
      `in this one run; latencies are over ${results.rounds} alternating rounds, rates are medians of the rounds.`,
    "",
    "## Targets",
    "",
    table(
      ["what", "target", "measured", "met"],
      list.map((check) => [check.what, check.target, check.measured, check.met ? "yes" : "**no**"]),
    ),
    "",
  ];
  if (problems.length > 0) {
    lines.push(
      "**This run is not valid:** some answers were wrong.",
      "",
      ...problems.map((p) => `- ${p}`),
      "",
    );
  }

  const { pageWeight } = results;
  lines.push(
    "## Browser weight",
    "",
    `JavaScript files each page loads in Chromium from the production build, each gzipped (zlib default level). ` +
      `Baseline: the app's own 404 page (\`${pageWeight.baseline.path}\`), same build and root layout, no client ` +
      `code of ours: ${kB(pageWeight.baseline.gzipBytes)} in ${pageWeight.baseline.files} files. For reference only, an ` +
      `empty Next.js app (\`bench/floor\`, built with webpack, not Turbopack: see its next.config.mjs) loads ${kB(pageWeight.emptyNextApp.gzipBytes)} in ` +
      `${pageWeight.emptyNextApp.files} files. The budget is also a test in \`npm test\` (\`e2e/page-weight.spec.ts\`).`,
    "",
    table(
      ["page", "files", "JS (gzip)", "over baseline", "files of ours (gzip)"],
      pageWeight.pages.map((page) => [
        `\`${page.path}\``,
        page.files,
        kB(page.gzipBytes),
        kB(page.addedGzipBytes),
        page.ownFiles.map((file) => `${file.file.split("/").pop()} ${kB(file.gzipBytes)}`).join(", ") || "–",
      ]),
    ),
    "",
    "## Lighthouse",
    "",
    "Lighthouse 12 in headless Chromium. Desktop is the target (agents work at call-center desktops), the median " +
      "of the runs; one mobile run (simulated mid-range phone, slow 4G, 4× CPU slowdown) is shown for reference.",
    "",
    table(
      [
        "page",
        "preset",
        "runs",
        "performance",
        "accessibility",
        "best practices",
        "LCP",
        "TBT",
        "CLS",
        "lost points",
      ],
      results.lighthouse.map((row) => [
        `\`${row.path}\``,
        row.preset,
        row.runs,
        row.performance,
        row.accessibility,
        row.bestPractices,
        `${row.largestContentfulPaintMs.toFixed(0)} ms`,
        `${row.totalBlockingTimeMs.toFixed(0)} ms`,
        row.cumulativeLayoutShift.toFixed(3),
        row.lostPoints.join(", ") || "–",
      ]),
    ),
    "",
    "## Submission overhead",
    "",
    "The same valid sale (a fresh CPF each time) posted four ways (five where PostgreSQL is available, see below), in alternating order each round, by a " +
      "closed-loop load generator on kept-alive connections timing each answer with `hrtime`: **direct** to the " +
      "sandbox's sale endpoint with a bearer token; through a minimal **node-proxy** (`bench/node-proxy.ts`) to the same " +
      "endpoint; through the **app** (`POST /api/sales`: session check, validation, ledger row, token, upstream " +
      "call, outcome); and to an **empty-route** Next.js handler (`bench/floor`), the framework's floor (the same " +
      "Next.js server; its route is bundled by webpack, the app's by Turbopack).",
    "",
    table(
      ["target", "concurrency", "requests", "p50", "p99", "req/s"],
      results.load.map((row) => [
        row.target,
        row.concurrency,
        row.requests,
        ms(row.p50Ms),
        ms(row.p99Ms),
        row.requestsPerSecond.toFixed(0),
      ]),
    ),
    "",
    `Medians of the per-round differences: the app adds ${ms(results.overhead.addedP50MsAtConcurrency1)} at p50 ` +
      `over the direct call at concurrency 1 (the node proxy adds ${ms(results.overhead.proxyAddedP50MsAtConcurrency1)}); ` +
      `at concurrency 50 the app serves ${results.overhead.throughputVsEmptyRouteAtConcurrency50.toFixed(2)}× the ` +
      `empty route's requests per second.` +
      (results.overhead.postgresqlThroughputVsEmptyRouteAtConcurrency50 === undefined
        ? ""
        : ` The same app on PostgreSQL (**app-postgresql**, \`DATABASE_URL\`, a throwaway local server with ` +
          `fsync off, as PGlite has no fsync either) adds ` +
          `${ms(results.overhead.postgresqlAddedP50MsAtConcurrency1 ?? Number.NaN)} at concurrency 1 and serves ` +
          `${results.overhead.postgresqlThroughputVsEmptyRouteAtConcurrency50.toFixed(2)}× the empty route's ` +
          "requests per second at concurrency 50."),
    "",
    ...(results.dbRoundTripsPerSale?.length
      ? [
          "Database round trips per accepted sale (the app's `partner_sales_db_round_trips_total` over its " +
            '`partner_sales_sales_total{outcome="accepted"}`, read before and after each round; background work ' +
            "in the same seconds included): " +
            results.dbRoundTripsPerSale
              .map(
                (row) =>
                  `${row.target} at concurrency ${row.concurrency} ${row.roundTripsPerSale.toFixed(2)}`,
              )
              .join(", ") +
            ".",
          "",
        ]
      : []),
    "## Token economy and memory",
    "",
    `- ${results.tokens.perThousandSales.sales} sales through the app right after start: ` +
      `${results.tokens.perThousandSales.tokenExchanges} token exchange(s), the boot warm-up's ` +
      `${results.tokens.perThousandSales.includingBootWarmUp} included.`,
    `- ${results.tokens.concurrentColdClient.sales} concurrent sales from a fresh process (empty token cache) ` +
      `through \`lib/provider\`: ${results.tokens.concurrentColdClient.tokenExchanges} exchange(s), ` +
      `${results.tokens.concurrentColdClient.accepted} accepted.`,
    `- ${results.tokens.concurrentAfterRevoke.sales} concurrent sales through the app after the sandbox revoked ` +
      `every token: ${results.tokens.concurrentAfterRevoke.tokenExchanges} exchange(s).`,
    `- App server (\`next-server\`) resident memory: peak ${results.memory.peakRssDuringLoadMb.toFixed(0)} MB ` +
      `sampled during the submission load, ${results.memory.peakRssWholeRunMb.toFixed(0)} MB high-water mark over ` +
      `the whole run (kernel's VmHWM).` +
      (results.memory.postgresql
        ? ` The same app on PostgreSQL: ${results.memory.postgresql.peakRssDuringLoadMb.toFixed(0)} MB during ` +
          `the load, ${results.memory.postgresql.peakRssWholeRunMb.toFixed(0)} MB high-water mark.`
        : ""),
    "",
  );

  const compared = [...comparison.before, ...comparison.after];
  if (compared.length > 0) {
    const thisRunSaved = comparison.after.some((run) => run.results.ranAt === results.ranAt);
    const columns = [...compared, ...(thisRunSaved ? [] : [{ label: "this run", results }])];
    const figures = columns.map((column) => new Map(keyFigures(column.results)));
    lines.push(
      "## Before and after",
      "",
      ...columns.map(
        (column) =>
          `- ${column.label}: ${column.results.ranAt}, commit ${column.results.commit}, ${column.results.rounds} rounds.`,
      ),
      "",
      table(
        ["figure", ...columns.map((column) => column.label)],
        keyFigures(results).map(([name]) => [name, ...figures.map((figure) => figure.get(name) ?? "–")]),
      ),
      "",
    );
  }
  return lines.join("\n");
}

/**
 * Writes bench/results/latest.json and latest.md (with bench/NOTES.md appended). Returns what made the run
 * invalid (wrong answers under load) apart from the targets it missed.
 */
export function writeReport(
  root: string,
  results: BenchResults,
): { markdownPath: string; invalid: string[]; missed: string[] } {
  const directory = join(root, "bench/results");
  mkdirSync(directory, { recursive: true });
  const list = checks(results);
  const problems = invalidities(results);
  const notesPath = join(root, "bench/NOTES.md");
  const notes = existsSync(notesPath) ? `\n${readFileSync(notesPath, "utf8")}` : "";

  writeFileSync(
    join(directory, "latest.json"),
    `${JSON.stringify({ ...results, targets: list }, null, 2)}\n`,
  );
  const markdownPath = join(directory, "latest.md");
  writeFileSync(markdownPath, `${markdown(results, list, problems, comparisonRuns(directory))}${notes}`);
  return {
    markdownPath,
    invalid: problems,
    missed: list.filter((check) => !check.met).map((check) => `${check.what}: ${check.measured}`),
  };
}
