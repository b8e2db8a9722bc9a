import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeLatestSection } from "./latest-section";

/** One way in, measured one check at a time (latency) and `concurrency` at a time (checks/s). */
export interface CheckFigures {
  checks: number;
  p50Ms: number;
  p95Ms: number;
  /** One at a time: what a single caller gets. */
  checksPerSecond: number;
  /** `concurrency` at a time: what the process can check. */
  concurrentChecksPerSecond: number;
}

export interface QueryTiming {
  name: string;
  p50Ms: number;
  p95Ms: number;
  runs: number;
  /** Sales per answer, on average. */
  rows: number;
}

/** How the database runs a query, from `EXPLAIN (ANALYZE, FORMAT JSON)` of the SQL the app sends. */
export interface QueryPlan {
  name: string;
  /** Its nodes, outermost first: `Limit > Nested Loop > … > Index Scan sales_updated_idx (sales) > …`. */
  nodes: string;
  /** The index it must read, and does: no sequential scan of `sales`, and no sort when it is read in index order. */
  expectedIndex: string;
  usesIndex: boolean;
  executionMs: number;
}

/** What bench/api-worker.ts prints: one database's figures. */
export interface ApiFigures {
  database: string;
  sales: number;
  /** The feed's range: the oldest and newest change in the ledger. */
  changes: { from: string; to: string };
  sessions: number;
  keys: number;
  integrations: number;
  rounds: number;
  concurrency: number;
  session: CheckFigures;
  key: CheckFigures;
  /** The median, over the rounds, of the key check's p50 minus the session check's in the same round. */
  keyMinusSessionP50Ms: number;
  feed: QueryTiming[];
  searches: QueryTiming[];
  plans: QueryPlan[];
  /** The machine's 1-minute load average after the run. */
  loadAverage: number;
}

export const API_TARGETS = { feedPageP95Ms: 150 };
export const API_SECTION_START = "<!-- api bench -->";
export const API_SECTION_END = "<!-- /api bench -->";

const ms = (value: number) => `${value.toFixed(2)} ms`;
const count = (value: number) => Math.round(value).toLocaleString("en-US");
const mark = (ok: boolean) => (ok ? "✅" : "❌");

/** The rule of issue 34: a key check costs at most what a session check costs (compared on the p50s). */
export const keyCheckHolds = (figures: ApiFigures) => figures.key.p50Ms <= figures.session.p50Ms;

function checkRows(figures: ApiFigures[]) {
  const row = (name: string, cell: (figure: ApiFigures) => string) =>
    `| ${name} | ${figures.map(cell).join(" | ")} |`;
  const way = (label: string, pick: (figure: ApiFigures) => CheckFigures) => [
    row(`${label}: p50 / p95`, (figure) => `${ms(pick(figure).p50Ms)} / ${ms(pick(figure).p95Ms)}`),
    row(
      `${label}: checks/s, one at a time / ${figures[0]!.concurrency} at a time`,
      (figure) => `${count(pick(figure).checksPerSecond)} / ${count(pick(figure).concurrentChecksPerSecond)}`,
    ),
  ];
  return [
    `| check | ${figures.map((figure) => figure.database).join(" | ")} |`,
    `| --- | ${figures.map(() => "---:").join(" | ")} |`,
    ...way("session check (`liveSessionAgent`)", (figure) => figure.session),
    ...way("key check (`authenticateApiKey`)", (figure) => figure.key),
    row("key − session, p50 (median of the rounds' differences)", (figure) =>
      ms(figure.keyMinusSessionP50Ms),
    ),
    row(
      "key check ≤ session check (p50)",
      (figure) => `${mark(keyCheckHolds(figure))} ${keyCheckHolds(figure) ? "holds" : "does not hold"}`,
    ),
  ];
}

function timingRows(figures: ApiFigures[], pick: (figure: ApiFigures) => QueryTiming[], target?: number) {
  return [
    `| query | ${figures.map((figure) => `${figure.database} p50 | ${figure.database} p95`).join(" | ")} | sales per answer |`,
    `| --- | ${figures.map(() => "---: | ---:").join(" | ")} | ---: |`,
    ...pick(figures[0]!).map(
      (timing, index) =>
        `| ${timing.name} | ${figures
          .map((figure) => {
            const { p50Ms, p95Ms } = pick(figure)[index]!;
            return `${ms(p50Ms)} | ${ms(p95Ms)}${target === undefined ? "" : ` ${mark(p95Ms <= target)}`}`;
          })
          .join(" | ")} | ${timing.rows.toFixed(0)} |`,
    ),
  ];
}

/** bench/results/latest.md's section for issue 34's figures: the key check beside the session check, the feed. */
export function apiSection(figures: ApiFigures[], when: string): string {
  const [first] = figures as [ApiFigures];
  return [
    API_SECTION_START,
    `## API keys and the changes feed at ${count(first.sales)} sales`,
    "",
    `${when}, in a process of its own on the ledger bench/history.ts builds (bench/api-worker.ts, the app ` +
      "stopped, after its first start on the ledger: PGlite's upkeep done, PostgreSQL's autovacuum caught up). " +
      `The session check is \`liveSessionAgent\` (the cookie already decoded) on ${count(first.sessions)} live ` +
      `sessions; the key check, \`authenticateApiKey\` on a request with \`Authorization: Bearer\`, on ` +
      `${first.keys} keys of ${first.integrations} integrations. Each picks a session or a key at random; neither has a touch due ` +
      `(each writes at most once a minute per session or key). ${first.rounds} rounds, the two in turn, which ` +
      `one first alternating. Machine load (1 minute) after each run: ` +
      `${figures.map((figure) => `${figure.database} ${figure.loadAverage.toFixed(1)}`).join(", ")}.`,
    "",
    ...checkRows(figures),
    "",
    "The changes feed (`saleChanges`, pages of 100, oldest change first, `updatedAfter` a cursor) and the search " +
      "(`searchSales`, limit 50) called as the route calls them, each answer made into the API's sales " +
      "(`apiSale`, with the customer) and JSON: what a route answers, less HTTP and the key check. Random cursors " +
      "are spread uniformly over the ledger's changes " +
      `(${figures.map((figure) => `${figure.database} ${figure.changes.from.slice(0, 10)} to ${figure.changes.to.slice(0, 10)}`).join("; ")}). ` +
      `Target: a feed page's p95 ≤ ${API_TARGETS.feedPageP95Ms} ms.`,
    "",
    ...timingRows(figures, (figure) => figure.feed, API_TARGETS.feedPageP95Ms),
    ...timingRows(figures, (figure) => figure.searches).slice(2),
    "",
    "Plans (`EXPLAIN (ANALYZE, FORMAT JSON)` of the SQL the app sends, once):",
    "",
    ...figures.flatMap((figure) =>
      figure.plans.map(
        (plan) =>
          `- ${figure.database}, ${plan.name}: ${mark(plan.usesIndex)} ${plan.nodes} (${ms(plan.executionMs)})`,
      ),
    ),
    API_SECTION_END,
  ].join("\n");
}

/** bench/results/api.json and its section of bench/results/latest.md. */
export function writeApiResults(root: string, figures: ApiFigures[], when: string) {
  if (figures.length === 0) return;
  writeFileSync(join(root, "bench/results/api.json"), `${JSON.stringify(figures, null, 2)}\n`);
  const section = apiSection(figures, when);
  writeLatestSection(root, section, { start: API_SECTION_START, end: API_SECTION_END });
  console.log(`\n${section}`);
}
