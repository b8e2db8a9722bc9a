import { formatCpf } from "../../lib/format";
import { formatProtocol } from "../../lib/sales/protocol";
import { readPage } from "./app-client";
import { PROBE_CUSTOMER } from "./ledger-customers";
import { memoryOf } from "./processes";
import { median, percentile } from "./stats";

export interface PageTiming {
  name: string;
  path: string;
  p50Ms: number;
  p95Ms: number;
  /** What the page weighs, as sent (HTML with its React payload). */
  bytes: number;
}

export type Page = Pick<PageTiming, "name" | "path">;

/** The whole ledger as CSV: the median of the runs (each run's rate too), and the server's largest RSS rise. */
export interface ExportFigures {
  rows: number;
  megabytes: number;
  seconds: number;
  rowsPerSecond: number;
  runsRowsPerSecond: number[];
  rssRiseMb: number;
}

/** What the pages look for: the probe customer's real sale, one of the 200 agents, a sale a year back. */
export interface Probes {
  protocol: string;
  agentId: string;
  deepSubmissionId: string;
}

/** `DD/MM/AAAA`, `daysAgo` days before today in the app's time zone, as the filter form sends it. */
const day = (daysAgo: number) =>
  new Intl.DateTimeFormat("pt-BR", { timeZone: "America/Sao_Paulo" }).format(
    Date.now() - daysAgo * 86_400_000,
  );

const sales = (query: Record<string, string>) => `/sales?${new URLSearchParams(query)}`;

/** The supervisor's pages, with the query strings the history's form and links build (lib/sales/history-filter.ts). */
export function supervisorPages({ protocol, agentId, deepSubmissionId }: Probes): Page[] {
  const month = { from: day(200), to: day(170) };
  return [
    { name: "history: first page", path: "/sales" },
    { name: "history: a page 12 months back (cursor)", path: sales({ after: deepSubmissionId }) },
    { name: "filter: status A confirmar", path: sales({ status: "unknown" }) },
    { name: "filter: status Recusada", path: sales({ status: "rejected" }) },
    { name: "filter: one agent", path: sales({ agent: agentId }) },
    { name: "filter: one month, 6 months back", path: sales(month) },
    { name: "filter: agent + status + month", path: sales({ agent: agentId, status: "rejected", ...month }) },
    {
      name: "search: CPF, full, with punctuation",
      path: sales({ q: formatCpf(PROBE_CUSTOMER.customerDocument) }),
    },
    { name: "search: protocol", path: sales({ q: formatProtocol(protocol) }) },
    { name: "search: e-mail", path: sales({ q: PROBE_CUSTOMER.customerEmail }) },
    { name: "search: name, part, without accents (rare)", path: sales({ q: "conceicao araujo bra" }) },
    { name: "search: name, part (common: 1 sale in 15)", path: sales({ q: "nascimento" }) },
    { name: "search: phone", path: sales({ q: "(21) 98888-7777" }) },
    { name: "search: partner's customer id", path: sales({ q: PROBE_CUSTOMER.externalId }) },
    { name: "one sale's page", path: `/sales/${deepSubmissionId}` },
    { name: "dashboard: today", path: "/dashboard" },
    { name: "dashboard: 7 days", path: "/dashboard?period=7d" },
    { name: "dashboard: 30 days", path: "/dashboard?period=30d" },
  ];
}

/** Each page `runs` times after `warmUps`, one request at a time, each read to its last byte. */
export async function timePages(
  origin: string,
  cookie: string,
  pages: Page[],
  { runs, warmUps, log }: { runs: number; warmUps: number; log: (message: string) => void },
): Promise<PageTiming[]> {
  const timings: PageTiming[] = [];
  for (const page of pages) {
    for (let warm = 0; warm < warmUps; warm++) await readPage(origin, page.path, cookie);
    const samples: number[] = [];
    let bytes = 0;
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      ({ bytes } = await readPage(origin, page.path, cookie));
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    timings.push({ ...page, p50Ms: percentile(samples, 50), p95Ms: percentile(samples, 95), bytes });
    log(
      `${page.name}: p50 ${timings.at(-1)!.p50Ms.toFixed(0)} ms, p95 ${timings.at(-1)!.p95Ms.toFixed(0)} ms`,
    );
  }
  return timings;
}

/** `/sales/export` (the whole ledger) `runs` times, with the app server's RSS sampled meanwhile. */
export async function timeExport(
  origin: string,
  cookie: string,
  serverPid: number,
  { runs, log }: { runs: number; log: (message: string) => void },
): Promise<ExportFigures> {
  const exports: { rows: number; bytes: number; seconds: number; rssRiseMb: number }[] = [];
  for (let run = 0; run < runs; run++) {
    const before = memoryOf(serverPid).rssMb;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(serverPid).rssMb)), 50);
    const started = performance.now();
    const { bytes, lines } = await readPage(origin, "/sales/export", cookie).finally(() =>
      clearInterval(sampler),
    );
    const seconds = (performance.now() - started) / 1000;
    // One line a sale, after the header.
    exports.push({ rows: lines - 1, bytes, seconds, rssRiseMb: peak - before });
    log(`export ${run + 1}: ${lines - 1} rows in ${seconds.toFixed(1)} s`);
  }
  const middle = exports.find((run) => run.seconds === median(exports.map((each) => each.seconds)))!;
  return {
    rows: middle.rows,
    megabytes: middle.bytes / 1e6,
    seconds: middle.seconds,
    rowsPerSecond: middle.rows / middle.seconds,
    runsRowsPerSecond: exports.map((run) => run.rows / run.seconds),
    rssRiseMb: Math.max(...exports.map((run) => run.rssRiseMb)),
  };
}
