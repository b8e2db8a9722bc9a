import { loadavg } from "node:os";
import type { PGlite } from "@electric-sql/pglite";
import { sql, type Logger } from "drizzle-orm";
import { drizzle as drizzleNodePostgres } from "drizzle-orm/node-postgres";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import type pg from "pg";
import { apiSale } from "../lib/api/sale-representation";
import { generateApiKey, type ApiScope } from "../lib/auth/api-keys";
import { passwordCredential } from "../lib/auth/credential";
import { authenticateApiKey } from "../lib/api/api-key";
import { liveSessionAgent } from "../lib/dal/session";
import { closeDb, getDb, type Database } from "../lib/db";
import { createApiKey } from "../lib/db/queries/api-keys";
import { saleChanges, searchSales, type ApiSaleRow, type ChangePoint } from "../lib/db/queries/api-sales";
import { rowsOf } from "../lib/db/rows";
import * as schema from "../lib/db/schema";
import type { ApiFigures, CheckFigures, QueryPlan, QueryTiming } from "./lib/api-report";
import { median, percentile } from "./lib/stats";

// Issue 34's figures (bench/history.ts and bench/api.ts run it), in a process of its own on a ledger (DATA_DIR, or
// DATABASE_URL), the app stopped; run with bench/lib/server-only.mjs, so the app's server-only modules load. It adds
// sessions and API keys, times the two checks side by side, then the changes feed and the search, and prints one
// JSON line: ApiFigures.
const DATABASE = process.env.BENCH_API_DATABASE ?? "PGlite";
const ROUNDS = Number(process.env.BENCH_API_ROUNDS ?? 5);
const CHECKS_PER_ROUND = 1_000;
const CONCURRENCY = 10;
const SESSIONS = 5_000;
const INTEGRATIONS = 8;
const KEYS_PER_INTEGRATION = 5;
const PAGE = 100;
const FEED_RUNS = 200;
const RUNS = 30;
const WARM_UPS = 3;
const BENCH_USER_AGENT = "bench/api-worker";
const NO_SALE = "00000000-0000-0000-0000-000000000000";
const log = (message: string) => console.error(`  [api ${DATABASE}] ${message}`);

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

/**
 * SESSIONS live password sessions, spread over the enabled agents, as openSession writes them. Their last use is
 * stamped an hour ahead, so that no touch falls due while the checks are timed: the session's once-a-minute write,
 * like the key's, is left out of the comparison (each costs one write a minute per session or key, not per check).
 */
async function addSessions(db: Database, ahead: Date) {
  await db.delete(schema.sessions).where(sql`${schema.sessions.userAgent} = ${BENCH_USER_AGENT}`);
  const agents = (await db.select().from(schema.agents)).filter(
    (agent) => agent.passwordHash && !agent.disabledAt,
  );
  const rows = Array.from({ length: SESSIONS }, (_, index) => {
    const agent = agents[index % agents.length]!;
    return {
      agentId: agent.id,
      method: "password" as const,
      door: "password",
      identityId: null,
      role: agent.role,
      credential: passwordCredential(agent.passwordHash!),
      createdAt: new Date(),
      lastSeenAt: ahead,
      userAgent: BENCH_USER_AGENT,
    };
  });
  const claims: { agentId: string; sessionId: string }[] = [];
  for (let start = 0; start < rows.length; start += 500) {
    const inserted = await db
      .insert(schema.sessions)
      .values(rows.slice(start, start + 500))
      .returning({ sessionId: schema.sessions.id, agentId: schema.sessions.agentId });
    claims.push(...inserted);
  }
  return claims;
}

/** INTEGRATIONS × KEYS_PER_INTEGRATION keys made as the CLI makes them, each with its request to /api/v1. */
async function addKeys(db: Database, ahead: Date) {
  const scopes: ApiScope[] = ["sales:write", "sales:read"];
  const requests: Request[] = [];
  for (let integration = 1; integration <= INTEGRATIONS; integration++) {
    for (let each = 0; each < KEYS_PER_INTEGRATION; each++) {
      const key = generateApiKey();
      await createApiKey(db, {
        name: `bench-${integration}`,
        key,
        scopes,
        expiresAt: null,
        actor: { actor: "cli:bench", door: "cli" },
      });
      requests.push(
        new Request("http://127.0.0.1/api/v1/sales", {
          method: "POST",
          headers: { authorization: `Bearer ${key.key}` },
        }),
      );
    }
  }
  await db.update(schema.apiKeys).set({ lastUsedAt: ahead });
  return requests;
}

async function timeChecks(check: () => Promise<void>, count: number, concurrency: number) {
  const latencies: number[] = [];
  let left = count;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const begun = performance.now();
        await check();
        latencies.push(performance.now() - begun);
      }
    }),
  );
  return { latencies, checksPerSecond: (count * 1000) / (performance.now() - started) };
}

/** The two checks in turn, ROUNDS times, which one first alternating; every check must let its caller in. */
async function compareChecks(
  db: Database,
  claims: Awaited<ReturnType<typeof addSessions>>,
  requests: Request[],
) {
  const checks = {
    session: async () => {
      if (!(await liveSessionAgent(pick(claims)))) throw new Error("A live session was refused.");
    },
    key: async () => {
      if (!(await authenticateApiKey(db, pick(requests), "sales:write")).ok)
        throw new Error("A key was refused.");
    },
  };
  type Way = keyof typeof checks;
  const pooled = { session: [] as number[], key: [] as number[] };
  const perRound = { session: [] as number[], key: [] as number[] };
  const rates = { session: [] as number[], key: [] as number[] };
  const concurrentRates = { session: [] as number[], key: [] as number[] };
  for (const way of ["session", "key"] as Way[]) await timeChecks(checks[way], 100, 1);
  for (let round = 0; round < ROUNDS; round++) {
    const order: Way[] = round % 2 === 0 ? ["session", "key"] : ["key", "session"];
    for (const way of order) {
      const single = await timeChecks(checks[way], CHECKS_PER_ROUND, 1);
      const concurrent = await timeChecks(checks[way], CHECKS_PER_ROUND, CONCURRENCY);
      pooled[way].push(...single.latencies);
      perRound[way].push(median(single.latencies));
      rates[way].push(single.checksPerSecond);
      concurrentRates[way].push(concurrent.checksPerSecond);
    }
    log(
      `round ${round + 1}: session p50 ${perRound.session.at(-1)!.toFixed(3)} ms, key p50 ` +
        `${perRound.key.at(-1)!.toFixed(3)} ms`,
    );
  }
  const figures = (way: Way): CheckFigures => {
    const sorted = [...pooled[way]].sort((a, b) => a - b);
    return {
      checks: sorted.length,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      checksPerSecond: median(rates[way]),
      concurrentChecksPerSecond: median(concurrentRates[way]),
    };
  };
  return {
    session: figures("session"),
    key: figures("key"),
    keyMinusSessionP50Ms: median(perRound.key.map((key, round) => key - perRound.session[round]!)),
  };
}

/** An answer as the route makes it: every sale in the API's representation, with its customer, as JSON. */
function answer(rows: ApiSaleRow[]) {
  const sales = rows.map((row) =>
    apiSale(row, {
      seller: {
        agent: row.agentId && row.agentName ? { id: row.agentId, name: row.agentName } : null,
        integration: row.integrationName,
      },
      settledBy: row.settlerId && row.settlerName ? { id: row.settlerId, name: row.settlerName } : null,
      withCustomer: true,
    }),
  );
  return JSON.stringify({ sales, nextCursor: null });
}

type Query = { name: string; read: (db: Database) => Promise<ApiSaleRow[]> };

/** Each query RUNS times (the feed's random pages FEED_RUNS), in turn, after WARM_UPS of each. */
async function timeQueries(db: Database, queries: (Query & { runs: number })[]): Promise<QueryTiming[]> {
  for (const query of queries) for (let warm = 0; warm < WARM_UPS; warm++) answer(await query.read(db));
  const samples = queries.map(() => ({ latencies: [] as number[], rows: 0 }));
  const most = Math.max(...queries.map((query) => query.runs));
  for (let run = 0; run < most; run++) {
    for (const [index, query] of queries.entries()) {
      if (run >= query.runs) continue;
      const started = performance.now();
      const rows = await query.read(db);
      answer(rows);
      samples[index]!.latencies.push(performance.now() - started);
      samples[index]!.rows += rows.length;
    }
  }
  return queries.map((query, index) => {
    const sorted = samples[index]!.latencies.sort((a, b) => a - b);
    const timing = {
      name: query.name,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      runs: sorted.length,
      rows: samples[index]!.rows / sorted.length,
    };
    log(`${timing.name}: p50 ${timing.p50Ms.toFixed(1)} ms, p95 ${timing.p95Ms.toFixed(1)} ms`);
    return timing;
  });
}

/** Random sales, each found by one probe of the primary key: their protocols and partner's ids. */
async function sampleSales(db: Database, count: number) {
  const found: { protocol: string; externalId: string | null }[] = [];
  while (found.length < count) {
    const [row] = rowsOf<{ protocol: string; externalId: string | null }>(
      await db.execute(sql`
        select protocol, request ->> 'externalId' as "externalId" from sales
        where submission_id >= gen_random_uuid() order by submission_id limit 1`),
    );
    if (row) found.push(row);
  }
  return found;
}

const planNode = (node: Record<string, unknown>): string[] => {
  const name = [
    node["Node Type"],
    node["Index Name"],
    node["Relation Name"] ? `(${node["Relation Name"]})` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const children = (node.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [name, ...children.flatMap(planNode)];
};

/**
 * The plan of the SQL the app sends for `query`: caught from a Drizzle instance over the same client with a logger,
 * then explained with its parameters. `expectedIndex` must be read, `sales` never scanned in full, and nothing
 * sorted when the query reads in the index's order.
 */
async function explain(
  db: Database,
  query: Query,
  { expectedIndex, inIndexOrder }: { expectedIndex: string; inIndexOrder: boolean },
): Promise<QueryPlan> {
  const caught: { query: string; params: unknown[] }[] = [];
  const logger: Logger = { logQuery: (text, params) => caught.push({ query: text, params }) };
  const client = (db as unknown as { $client: PGlite | pg.Pool }).$client;
  const logging = (process.env.DATABASE_URL
    ? drizzleNodePostgres(client as pg.Pool, { schema, logger })
    : drizzlePglite(client as PGlite, { schema, logger })) as unknown as Database;
  await query.read(logging);
  const { query: text, params } = caught.at(-1)!;
  const explained = `explain (analyze, format json) ${text}`;
  const { rows } = process.env.DATABASE_URL
    ? await (client as pg.Pool).query<{ "QUERY PLAN": unknown }>(explained, params)
    : await (client as PGlite).query<{ "QUERY PLAN": unknown }>(explained, params);
  const raw = rows[0]!["QUERY PLAN"];
  const [plan] = (typeof raw === "string" ? JSON.parse(raw) : raw) as {
    Plan: Record<string, unknown>;
    "Execution Time": number;
  }[];
  const nodes = planNode(plan!.Plan);
  const usesIndex =
    nodes.some((node) => node.includes(expectedIndex)) &&
    !nodes.some((node) => node === "Seq Scan (sales)" || (inIndexOrder && node.startsWith("Sort")));
  return {
    name: query.name,
    nodes: nodes.join(" > "),
    expectedIndex,
    usesIndex,
    executionMs: plan!["Execution Time"],
  };
}

/** The feed's range: how many sales, its oldest change, and its newest (the point a caught-up reader polls from). */
async function changeRange(db: Database) {
  const [range] = rowsOf<{ sales: number; from: string; to: string; fromMicros: string; head: ChangePoint }>(
    await db.execute(sql`
      select (select count(*)::int from sales) as sales,
        (select min(updated_at)::text from sales) as "from",
        (extract(epoch from (select min(updated_at) from sales)) * 1000000)::bigint::text as "fromMicros",
        newest.updated_at::text as "to",
        json_build_object(
          'micros', (extract(epoch from newest.updated_at) * 1000000)::bigint::text,
          'submissionId', newest.submission_id) as head
      from (select updated_at, submission_id from sales order by updated_at desc, submission_id desc limit 1) newest`),
  );
  return range!;
}

/** Pages of the changes feed from random cursors, from the start and at the head; single-sale searches. */
async function timeReads(db: Database) {
  const range = await changeRange(db);
  const [from, to] = [Number(range.fromMicros), Number(range.head.micros)];
  const randomPoint = (): ChangePoint => ({
    micros: String(Math.floor(from + Math.random() * (to - from))),
    submissionId: NO_SALE,
  });
  const start: ChangePoint = { micros: "0", submissionId: NO_SALE };
  const probes = await sampleSales(db, RUNS * 2);
  const withExternalId = probes.filter((probe) => probe.externalId);
  const feed: Query[] = [
    {
      name: "feed: a page from a random cursor",
      read: (db) => saleChanges(db, { after: randomPoint(), limit: PAGE }),
    },
    {
      name: "feed: the first page (cursor at the epoch)",
      read: (db) => saleChanges(db, { after: start, limit: PAGE }),
    },
    {
      name: "feed: polling at the newest change (nothing new)",
      read: (db) => saleChanges(db, { after: range.head, limit: PAGE }),
    },
  ];
  const searches: Query[] = [
    {
      name: "search: one protocol",
      read: (db) => searchSales(db, { protocol: pick(probes).protocol, limit: 50 }),
    },
    {
      name: "search: one partner's customer id (externalId)",
      read: (db) => searchSales(db, { externalId: pick(withExternalId).externalId!, limit: 50 }),
    },
  ];
  const timings = await timeQueries(db, [
    ...feed.map((query, index) => ({ ...query, runs: index === 0 ? FEED_RUNS : RUNS })),
    ...searches.map((query) => ({ ...query, runs: RUNS })),
  ]);
  const plans = [
    await explain(db, feed[0]!, { expectedIndex: "sales_updated_idx", inIndexOrder: true }),
    await explain(db, feed[1]!, { expectedIndex: "sales_updated_idx", inIndexOrder: true }),
    // A search sorts the few sales that match, newest first.
    await explain(db, searches[0]!, { expectedIndex: "sales_protocol_key", inIndexOrder: false }),
    await explain(db, searches[1]!, { expectedIndex: "sales_external_id_idx", inIndexOrder: false }),
  ];
  for (const plan of plans) log(`plan, ${plan.name}: ${plan.nodes}`);
  return {
    sales: range.sales,
    changes: { from: range.from, to: range.to },
    feed: timings.slice(0, feed.length),
    searches: timings.slice(feed.length),
    plans,
  };
}

async function main() {
  const db = await getDb();
  const ahead = new Date(Date.now() + 3_600_000);
  const claims = await addSessions(db, ahead);
  const requests = await addKeys(db, ahead);
  log(`${claims.length} sessions and ${requests.length} keys added`);
  const checks = await compareChecks(db, claims, requests);
  const reads = await timeReads(db);
  const figures: ApiFigures = {
    database: DATABASE,
    ...reads,
    sessions: claims.length,
    keys: requests.length,
    integrations: INTEGRATIONS,
    rounds: ROUNDS,
    concurrency: CONCURRENCY,
    ...checks,
    loadAverage: loadavg()[0]!,
  };
  await closeDb();
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

await main();
