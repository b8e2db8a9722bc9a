import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { getDb } from "../lib/db";
import { countDaysIn } from "../lib/db/queries/sale-day-counts";
import { sales } from "../lib/db/schema";
import { readDashboard } from "../lib/dal/dashboard";
import { exportVisibleSales } from "../lib/dal/sales-export";
import { readHistoryPage } from "../lib/dal/sales-history";
import type { SessionAgent } from "../lib/dal/session";
import { formatCpf } from "../lib/format";
import { parseHistoryView } from "../lib/sales/history-filter";
import { newProtocol } from "../lib/sales/protocol";
import { percentile } from "./lib/stats";

// One database's half of `bench/history.ts`, in its own process (run with --conditions=react-server, so the app's
// server-only modules load): the app's configuration comes from the environment the parent sets (DATABASE_URL or
// DATA_DIR), the ledger is generated in bulk, and the pages' data functions are timed as the server runs them.
const SALES = Number(process.env.BENCH_HISTORY_SALES ?? 1_000_000);
const AGENTS = 200;
const DAYS = 548; // 18 months
const RUNS = Number(process.env.BENCH_HISTORY_RUNS ?? 30);
const EXPORT_RUNS = 3;
const log = (message: string) => console.error(`  [${process.env.BENCH_HISTORY_NAME}] ${message}`);

const FIRST_NAMES = [
  "João",
  "Maria",
  "José",
  "Ana",
  "Antônio",
  "Francisca",
  "Carlos",
  "Luíza",
  "Paulo",
  "Márcia",
  "Pedro",
  "Adriana",
  "Lucas",
  "Juliana",
  "Luiz",
  "Patrícia",
  "Marcos",
  "Aline",
  "Rafael",
  "Fernanda",
];
const SURNAMES = [
  "Silva",
  "Santos",
  "Oliveira",
  "Souza",
  "Conceição",
  "Araújo",
  "Gonçalves",
  "Pereira",
  "Lima",
  "Gomes",
  "Ribeiro",
  "Carvalho",
  "Almeida",
  "Lopes",
  "Soares",
  "Fernandes",
  "Vieira",
  "Barbosa",
  "Rocha",
  "Dias",
  "Nascimento",
  "Andrade",
  "Moreira",
  "Nunes",
  "Marques",
  "Machado",
  "Mendes",
  "Freitas",
  "Cardoso",
  "Ramos",
];
/** The rows of `db.execute` (node-postgres and PGlite both answer `{ rows }`). */
const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;
const sqlArray = (values: string[]) => sql.raw(`array[${values.map((value) => `'${value}'`).join(",")}]`);

/** 1,000,000 sales over 18 months and 200 agents, straight into the tables (indexes built once, after). */
async function generate() {
  const db = await getDb();
  const [{ existing }] = rowsOf<{ existing: number }>(
    await db.execute(sql`select count(*)::int as existing from ${sales}`),
  ) as [{ existing: number }];
  if (existing >= SALES) return log(`ledger already holds ${existing} sales`);
  const started = Date.now();
  await db.execute(sql`
    insert into agents (email, name, role)
    select 'agente' || n || '@bench.example', 'Agente ' || n, 'agent' from generate_series(1, ${AGENTS}) n
    on conflict do nothing`);
  const indexes = rowsOf<{ indexname: string; indexdef: string }>(
    await db.execute(sql`
      select indexname, indexdef from pg_indexes
      where tablename = 'sales' and indexname not in ('sales_pkey', 'sales_protocol_key')`),
  );
  for (const { indexname } of indexes) await db.execute(sql.raw(`drop index "${indexname}"`));
  await db.execute(sql`alter table ${sales} disable trigger user`);
  const chunk = 100_000;
  for (let start = 1; start <= SALES; start += chunk) {
    const end = Math.min(SALES, start + chunk - 1);
    // Newest first by g; statuses as a call center sees them: unknown only among the last month's, not yet settled.
    await db.execute(sql`
      with agent as (select id, row_number() over (order by email) as n from agents where email like '%@bench.example')
      insert into sales (submission_id, protocol, agent_id, status, request, created_at, updated_at, upstream_status, upstream_message)
      select gen_random_uuid(), 'B' || lpad(g::text, 9, '0'), agent.id,
        (case when g % 100 < 85 then 'accepted' when g % 100 < 92 then 'rejected' when g % 100 < 96 then 'failed'
              when g < ${Math.floor((SALES / DAYS) * 30)} then 'unknown' else 'accepted' end)::sale_status,
        jsonb_build_object(
          'customerDocument', lpad((g::bigint * 7919 % 99999999999)::text, 11, '0'),
          'customerName', first_name || ' ' || middle || ' ' || last_name,
          'customerEmail', lower(sales_fold(first_name)) || '.' || g || '@exemplo.com.br',
          'customerPhone', (11 + g % 80)::text || '9' || lpad((g % 100000000)::text, 8, '0'),
          'planId', '3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14',
          'externalId', 'CRM-' || g),
        created, created, 200, 'Partner sale registered.'
      from generate_series(${start}::int, ${end}::int) g
      cross join lateral (select
        (${sqlArray(FIRST_NAMES)})[1 + g % ${FIRST_NAMES.length}] as first_name,
        (${sqlArray(SURNAMES)})[1 + (g / 7) % ${SURNAMES.length}] as middle,
        (${sqlArray(SURNAMES)})[1 + (g / 211) % ${SURNAMES.length}] as last_name,
        now() - g * ${(DAYS * 86_400) / SALES}::float8 * interval '1 second' - (g % 17) * interval '1 second' as created) v
      join agent on agent.n = 1 + (g * 7) % ${AGENTS}`);
    log(`${end} sales written (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  await db.execute(sql`alter table ${sales} enable trigger user`);
  for (const { indexname, indexdef } of indexes) {
    const at = Date.now();
    await db.execute(sql.raw(indexdef));
    log(`${indexname} built in ${Math.round((Date.now() - at) / 1000)} s`);
  }
  // The trigger was off: the day counts are recounted as a change of zone would.
  await db.execute(sql`update sale_counts_zone set time_zone = 'UTC'`);
  await countDaysIn(db, process.env.APP_TIME_ZONE ?? "America/Sao_Paulo");
  await db.execute(sql`vacuum analyze`);
  log(`ledger of ${SALES} sales ready in ${Math.round((Date.now() - started) / 1000)} s`);
}

async function time(runs: number, task: () => Promise<unknown>, warmUps = 3) {
  for (let warm = 0; warm < warmUps; warm++) await task();
  const timings: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await task();
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  return { p50Ms: percentile(timings, 50), p95Ms: percentile(timings, 95) };
}

async function main() {
  await generate();
  if (process.argv.includes("--generate-only")) process.exit(0);
  const db = await getDb();
  // A few sales as the app writes them (a real protocol, a customer with accents) for the exact searches.
  const probe = { submissionId: randomUUID(), protocol: newProtocol() };
  const agentRows = rowsOf<{ id: string; name: string; email: string }>(
    await db.execute(
      sql`select id, name, email from agents where email like '%@bench.example' order by email limit 1`,
    ),
  );
  const someAgent = agentRows[0]!;
  await db.insert(sales).values({
    ...probe,
    agentId: someAgent.id,
    status: "accepted",
    request: {
      customerDocument: "52998224725",
      customerName: "Conceição Araújo Brandão",
      customerEmail: "conceicao.brandao@provedor.com.br",
      customerPhone: "21988887777",
      planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
      externalId: "PROBE-1",
    },
  });
  const [deep] = rowsOf<{ submission_id: string }>(
    await db.execute(sql`
    select submission_id from sales order by created_at desc, submission_id desc offset ${Math.floor(SALES * 0.66)} limit 1`),
  );

  const supervisor: SessionAgent = {
    id: randomUUID(),
    name: "Bench",
    email: "s@bench",
    role: "supervisor",
    sessionId: "",
    door: "password",
  };
  const agent: SessionAgent = {
    ...someAgent,
    role: "agent",
    sessionId: "",
    door: "password",
  };
  const day = (daysAgo: number) =>
    new Intl.DateTimeFormat("pt-BR", { timeZone: "America/Sao_Paulo" }).format(
      Date.now() - daysAgo * 86_400_000,
    );
  const page = (viewer: SessionAgent, query: Record<string, string>) => () =>
    readHistoryPage(viewer, parseHistoryView(query));

  const pages: [string, () => Promise<unknown>][] = [
    ["first page (supervisor)", page(supervisor, {})],
    ["first page (agent, own sales)", page(agent, {})],
    ["page deep in the past by cursor (12 months back)", page(supervisor, { after: deep!.submission_id })],
    ["filter: status A confirmar", page(supervisor, { status: "unknown" })],
    ["filter: status Recusada", page(supervisor, { status: "rejected" })],
    ["filter: one agent", page(supervisor, { agent: someAgent.id })],
    ["filter: one month, 6 months back", page(supervisor, { from: day(200), to: day(170) })],
    [
      "filter: agent + status + month",
      page(supervisor, { agent: someAgent.id, status: "rejected", from: day(200), to: day(170) }),
    ],
    ["search: CPF with punctuation", page(supervisor, { q: formatCpf("52998224725") })],
    ["search: name, part, without accents (rare)", page(supervisor, { q: "conceicao araujo bra" })],
    ["search: name, part (common: 1 sale in 15)", page(supervisor, { q: "nascimento" })],
    ["search: e-mail, part", page(supervisor, { q: "conceicao.brandao@prov" })],
    ["search: phone", page(supervisor, { q: "(21) 98888-7777" })],
    ["search: partner's customer id", page(supervisor, { q: "PROBE-1" })],
    ["search: protocol", page(supervisor, { q: `${probe.protocol.slice(0, 5)}-${probe.protocol.slice(5)}` })],
    ["search: submissionId", page(supervisor, { q: probe.submissionId })],
    ["dashboard (today)", () => readDashboard(supervisor, "today")],
    ["dashboard (30 days)", () => readDashboard(supervisor, "30d")],
  ];
  const results: { name: string; p50Ms: number; p95Ms: number }[] = [];
  for (const [name, task] of pages) {
    results.push({ name, ...(await time(RUNS, task)) });
    log(`${name}: p95 ${results.at(-1)!.p95Ms.toFixed(1)} ms`);
  }

  // The whole ledger as CSV, read as a client would, with the process's RSS sampled meanwhile. One run is one
  // sample of a figure that moves by ±15% from run to run on two cores: three runs, the median reported, each shown.
  const exports: { rows: number; bytes: number; seconds: number; rssRiseMb: number }[] = [];
  for (let run = 0; run < EXPORT_RUNS; run++) {
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = performance.now();
    const reader = exportVisibleSales(supervisor, {}).body.getReader();
    let bytes = 0;
    let rows = -1; // the header
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      bytes += next.value.byteLength;
      for (let at = next.value.indexOf(10); at !== -1; at = next.value.indexOf(10, at + 1)) rows++;
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    exports.push({ rows, bytes, seconds, rssRiseMb: (peak - rssBefore) / 1e6 });
    log(`export ${run + 1}: ${rows} rows in ${seconds.toFixed(1)} s`);
  }
  const median = [...exports].sort((a, b) => a.seconds - b.seconds)[exports.length >> 1]!;
  const exported = {
    rows: median.rows,
    megabytes: median.bytes / 1e6,
    seconds: median.seconds,
    rowsPerSecond: median.rows / median.seconds,
    runsRowsPerSecond: exports.map((run) => run.rows / run.seconds),
    rssRiseMb: Math.max(...exports.map((run) => run.rssRiseMb)),
  };

  // Before: what these pages cost without what this change added (the day counts, the trigram index).
  const before = [
    {
      name: "counts per status, whole ledger, counted from the ledger",
      ...(await time(3, () => db.execute(sql`select status, count(*) from ${sales} group by status`), 1)),
    },
  ];
  const [trigram] = rowsOf<{ indexdef: string }>(
    await db.execute(sql`
    select indexdef from pg_indexes where indexname = 'sales_customer_name_trgm_idx'`),
  );
  // Every row's name folded and compared: one run is enough to tell.
  await db.execute(sql`drop index sales_customer_name_trgm_idx`);
  try {
    before.push({
      name: "search: name, part, without accents (rare), without the trigram index (1 run)",
      ...(await time(1, page(supervisor, { q: "conceicao araujo bra" }), 0)),
    });
  } finally {
    await db.execute(sql.raw(trigram!.indexdef));
  }
  process.stdout.write(`${JSON.stringify({ sales: SALES, results, exported, before })}\n`, () =>
    process.exit(0),
  );
}

await main();
