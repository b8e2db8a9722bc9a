import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metrics } from "@/lib/metrics";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "./connection";
import { releaseLease, takeLease } from "./queries/job-leases";
import * as schema from "./schema";
import { runUpkeep, startUpkeep, UPKEEP_JOB, type UpkeepRun } from "./upkeep";
import { DAILY_MS } from "./upkeep-plan";
import { rowsOf } from "./rows";

const NOW = new Date("2026-11-24T12:00:00Z");
const SALES = 3_000;

const tasksOn = (run: UpkeepRun, table: string) =>
  run.tasks
    .filter((task) => task.table === table && task.task !== "gin_clean_pending_list")
    .map((task) => task.task);
const planOn = (run: UpkeepRun, table: string) => run.plans.find((plan) => plan.table === table);

async function upkeepSeconds(task: string): Promise<number> {
  const metric = (await metrics().registry.getSingleMetric("partner_sales_db_upkeep_seconds")?.get()) as
    { values: { labels: Record<string, string>; value: number; metricName?: string }[] } | undefined;
  const count = metric?.values.find(
    (entry) => entry.metricName === "partner_sales_db_upkeep_seconds_count" && entry.labels.task === task,
  );
  return count?.value ?? 0;
}

const [pglite] = testDatabases;

describe("the embedded database's upkeep", () => {
  let handle: DatabaseHandle & { dataDir: string };
  let agentId: string;

  const execute = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await handle.db.execute(query));
  const salesVisibility = async () =>
    (
      await execute<{ pages: number; allVisible: number }>(sql`
        select (pg_relation_size('sales') / current_setting('block_size')::int)::int as "pages",
          all_visible::int as "allVisible"
        from pg_visibility_map_summary('sales'::regclass)`)
    )[0]!;
  const upkeep = (hoursLater = 0) =>
    runUpkeep(handle.db, { cause: "test", now: new Date(NOW.getTime() + hoursLater * 3_600_000) });

  /** Sales `from`…`to`, in one statement, each with a customer of its own. */
  const insertSales = (from: number, to: number) =>
    handle.db.execute(sql`
      insert into sales (submission_id, protocol, agent_id, status, request)
      select gen_random_uuid(), 'T' || lpad(g::text, 9, '0'), ${agentId}, 'accepted',
        jsonb_build_object('customerDocument', lpad(g::text, 11, '0'), 'customerName', 'Cliente ' || g,
          'customerEmail', 'cliente.' || g || '@example.com', 'customerPhone', '1198765' || lpad(g::text, 4, '0'),
          'planId', '3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14', 'externalId', 'CRM-' || g)
      from generate_series(${from}::int, ${to}::int) g`);

  beforeAll(async () => {
    handle = await pglite!.open();
    const [agent] = await handle.db
      .insert(schema.agents)
      .values({ email: "upkeep@example.com", name: "Upkeep" })
      .returning({ id: schema.agents.id });
    agentId = agent!.id;
    await insertSales(1, SALES);
  });
  afterAll(() => handle?.close());

  it("vacuums and analyzes a ledger never analyzed: statistics for the planner, every page all-visible", async () => {
    const timed = await upkeepSeconds("vacuum");
    const run = await upkeep();

    expect(run.ran).toBe(true);
    expect(planOn(run, "sales")).toEqual({ table: "sales", task: "vacuum_analyze", reason: "no_statistics" });
    expect(tasksOn(run, "sales")).toEqual(["vacuum", "analyze"]);
    const [statistics] = await execute<{ columns: number }>(
      sql`select count(*)::int as "columns" from pg_stats where schemaname = 'public' and tablename = 'sales'`,
    );
    expect(statistics!.columns).toBeGreaterThan(10);
    const { pages, allVisible } = await salesVisibility();
    expect(pages).toBeGreaterThan(50);
    expect(allVisible).toBe(pages);
    expect(run.longestMs).toBe(Math.max(...run.tasks.map((task) => task.ms)));
    expect(await upkeepSeconds("vacuum")).toBeGreaterThan(timed);
  });

  it("does nothing right after but merge the trigram indexes' pending lists", async () => {
    const run = await upkeep();

    expect(run.tasks.map((task) => task.task)).toEqual(["gin_clean_pending_list", "gin_clean_pending_list"]);
    expect(run.plans.every((plan) => plan.task === null)).toBe(true);
  });

  it("leaves a ledger with one changed page alone", async () => {
    await handle.db.execute(sql`update sales set status = 'rejected' where protocol = 'T000000001'`);

    const run = await upkeep();

    expect(planOn(run, "sales")).toEqual({ table: "sales", task: null, reason: "below_threshold" });
    expect(tasksOn(run, "sales")).toEqual([]);
  });

  it("vacuums and analyzes a ledger grown by a tenth (a bulk import)", async () => {
    await insertSales(SALES + 1, SALES + SALES * 0.15);

    const run = await upkeep();

    expect(planOn(run, "sales")).toEqual({ table: "sales", task: "vacuum_analyze", reason: "grew" });
    expect(tasksOn(run, "sales")).toEqual(["vacuum", "analyze"]);
  });

  it("vacuums and analyzes again once many sales changed", async () => {
    await handle.db.execute(sql`update sales set status = 'rejected' where protocol <= 'T000001500'`);

    const run = await upkeep();

    expect(planOn(run, "sales")).toEqual({ table: "sales", task: "vacuum_analyze", reason: "not_visible" });
    expect(tasksOn(run, "sales")).toEqual(["vacuum", "analyze"]);
    const { pages, allVisible } = await salesVisibility();
    expect(allVisible).toBe(pages);
  });

  it("vacuums daily what stays below the thresholds", async () => {
    await handle.db.execute(sql`update sales set status = 'rejected' where protocol = 'T000000002'`);

    expect(planOn(await upkeep(23), "sales")).toMatchObject({ task: null, reason: "below_threshold" });
    const daily = await upkeep(DAILY_MS / 3_600_000);
    expect(planOn(daily, "sales")).toMatchObject({ task: "vacuum_analyze", reason: "daily" });
    // The job's own lease row changed too: made visible daily, like any table.
    expect(planOn(daily, "job_leases")).toMatchObject({ task: "vacuum_analyze", reason: "daily" });
  });

  it("runs in one process at a time: another holder of the job makes it a no-op", async () => {
    expect(await takeLease(handle.db, UPKEEP_JOB, "the CLI", 60_000)).toBe(true);
    try {
      await handle.db.execute(sql`update sales set status = 'failed'`);
      const run = await upkeep();
      expect(run).toMatchObject({ ran: false, skipped: "lease_held", tasks: [] });
    } finally {
      await releaseLease(handle.db, UPKEEP_JOB, "the CLI");
    }
    const { pages, allVisible } = await salesVisibility();
    expect(allVisible).toBeLessThan(pages);
  });

  it("runs through the server's socket, as the CLI does", async () => {
    const client = new pg.Client({
      host: handle.dataDir,
      port: 5432,
      user: "postgres",
      database: "postgres",
    });
    await client.connect();
    try {
      await handle.db.execute(sql`update sales set status = 'rejected'`);

      const run = await runUpkeep(drizzle(client, { schema }), { cause: "cli" });

      expect(planOn(run, "sales")).toMatchObject({ task: "vacuum_analyze", reason: "not_visible" });
      const merged = run.tasks.filter((task) => task.task === "gin_clean_pending_list");
      expect(merged.map((task) => task.table)).toEqual(["sales", "sales"]);
    } finally {
      await client.end();
    }
  });

  it("starts with a run, answers a request with another, and stops", async () => {
    await handle.db.execute(sql`update sales set status = 'failed'`);
    expect((await salesVisibility()).allVisible).toBeLessThan((await salesVisibility()).pages);
    const schedule = await startUpkeep(handle.db);
    const { pages, allVisible } = await salesVisibility();
    expect(allVisible).toBe(pages);

    await handle.db.execute(sql`update sales set status = 'accepted'`);
    const [first, second] = await Promise.all([schedule.request("retention"), schedule.request("retention")]);
    expect(first).toBe(second);
    expect(planOn(first!, "sales")).toMatchObject({ task: "vacuum_analyze", reason: "not_visible" });

    await schedule.stop();
    expect(await schedule.request("after stop")).toBeUndefined();
  });

  it("runs no more once the server drains: the requests in flight come first", async () => {
    const schedule = await startUpkeep(handle.db);
    await handle.db.execute(sql`update sales set status = 'failed'`);
    // What scripts/server.mjs sets on SIGTERM (lib/lifecycle.ts).
    const draining = Symbol.for("partner-sales.draining");
    (globalThis as Record<symbol, unknown>)[draining] = true;
    try {
      expect(await schedule.request("retention")).toBeUndefined();
      expect(await runUpkeep(handle.db, { cause: "schedule" })).toMatchObject({
        ran: false,
        skipped: "stopped",
      });
    } finally {
      delete (globalThis as Record<symbol, unknown>)[draining];
      await schedule.stop();
    }
    // Drained and started again (a test here; a new process there): the changed pages are still owed.
    const run = await runUpkeep(handle.db, { cause: "start" });
    expect(planOn(run, "sales")).toMatchObject({ task: "vacuum_analyze" });
  });
});

describe.each(testDatabases.filter((database) => database.name === "PostgreSQL"))(
  "upkeep on $name",
  ({ open }) => {
    it("is left to autovacuum", async () => {
      const handle = await open();
      try {
        expect(await runUpkeep(handle.db, { cause: "test" })).toMatchObject({
          ran: false,
          skipped: "autovacuum",
        });
      } finally {
        await handle.close();
      }
    });
  },
);
