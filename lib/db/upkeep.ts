import "server-only";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "drizzle-orm";
import { isDraining } from "@/lib/lifecycle";
import { log } from "@/lib/log";
import { upkeepTasks, type UpkeepTaskMessage, type UpkeepTaskName } from "./channels";
import type { Database } from "./connection";
import { releaseLease, takeLease } from "./queries/job-leases";
import { planUpkeep, type TablePlan, type TableState, type UpkeepReason } from "./upkeep-plan";
import { rowsOf } from "./rows";

/**
 * The embedded database's VACUUM and ANALYZE, which PGlite leaves to the app: it runs no autovacuum, and without
 * statistics the planner reads a million sales for a page of them. PGlite runs inside this process's thread, so
 * every statement here holds every request (the event loop included) for as long as it takes: VACUUM and ANALYZE
 * are separate statements with a breath between tasks, the longest pause being the longest task, not their sum.
 * PostgreSQL's autovacuum does all this there.
 */

export const UPKEEP_JOB = "database-upkeep";
/** Longer than any one task (seconds on a million sales); renewed before each. */
const LEASE_MS = 5 * 60_000;
/** How often the server looks: a run that finds nothing to do is one query, the lease and the GIN merges. */
export const UPKEEP_EVERY_MS = 10 * 60_000;
/** Between two tasks, the requests that waited are served (a sale is a handful of statements). */
const BREATH_MS = 100;

export interface UpkeepTaskRun {
  task: UpkeepTaskName;
  table: string;
  reason: UpkeepReason | "pending_list";
  ms: number;
}

export interface UpkeepRun {
  /** False when nothing was looked at: PostgreSQL (its autovacuum), or another process holds the job. */
  ran: boolean;
  skipped?: "autovacuum" | "lease_held" | "stopped";
  plans: TablePlan[];
  tasks: UpkeepTaskRun[];
  /** The longest task: how long every request waited at worst. */
  longestMs: number;
}

interface TableRow extends Omit<TableState, "vacuumedAt"> {
  ginIndexes: string[];
}

/** Whether `db` is PGlite (in this process, or the server's through its socket); asked once per database. */
const embedded = new WeakMap<Database, Promise<boolean>>();
function isEmbedded(db: Database): Promise<boolean> {
  let answer = embedded.get(db);
  if (!answer) {
    answer = db
      .execute(sql`select version() like '%PGlite%' as embedded`)
      .then((result) => rowsOf<{ embedded: boolean }>(result)[0]?.embedded === true)
      .catch((error: unknown) => {
        embedded.delete(db);
        throw error;
      });
    embedded.set(db, answer);
  }
  return answer;
}

/** This process's memory of the database: when it began looking after it, and when it vacuumed each table. */
const memories = new WeakMap<Database, { startedAt: Date; vacuumedAt: Map<string, Date> }>();
function memoryOf(db: Database, now: Date) {
  let memory = memories.get(db);
  if (!memory) memories.set(db, (memory = { startedAt: now, vacuumedAt: new Map() }));
  return memory;
}

/** Every table of the app's schema, as the plan reads it, and its GIN indexes: one query. */
async function readTables(db: Database): Promise<TableRow[]> {
  const result = await db.execute(sql`
    select c.relname::text as "table",
      (pg_relation_size(c.oid) / current_setting('block_size')::int)::int as "pages",
      visibility.all_visible::int as "allVisiblePages",
      c.relpages as "lastPages",
      c.reltuples as "lastTuples",
      exists (select from pg_statistic s where s.starelid = c.oid) as "hasStatistics",
      array(
        select index.relname::text from pg_index i
        join pg_class index on index.oid = i.indexrelid
        join pg_am am on am.oid = index.relam
        where i.indrelid = c.oid and am.amname = 'gin'
        order by 1
      ) as "ginIndexes"
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    cross join lateral pg_visibility_map_summary(c.oid) visibility
    where n.nspname = 'public' and c.relkind = 'r'
    order by c.relname`);
  return rowsOf<TableRow>(result);
}

const quoted = (table: string) => sql.raw(`public."${table.replaceAll('"', '""')}"`);

/** Pages merged from a GIN index's pending list into the index (what an insert would do once it is 4 MB long). */
async function cleanPendingList(db: Database, index: string): Promise<number> {
  const result = await db.execute(sql`
    select gin_clean_pending_list(c.oid)::int as "pages" from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relname = ${index}`);
  return rowsOf<{ pages: number }>(result)[0]?.pages ?? 0;
}

interface Step {
  task: UpkeepTaskName;
  table: string;
  reason: UpkeepTaskRun["reason"];
  fields: Record<string, unknown>;
  /** What to add to the log line; a GIN index whose pending list was empty is not worth one. */
  work: () => Promise<Record<string, unknown> | null>;
}

/** The statements a run carries out, in order: each table's pending lists merged, then its plan. */
function stepsOf(db: Database, tables: TableRow[], plans: TablePlan[], onVacuumed: (table: string) => void) {
  const steps: Step[] = [];
  for (const [i, plan] of plans.entries()) {
    const { table, pages, allVisiblePages, ginIndexes } = tables[i]!;
    for (const index of ginIndexes) {
      steps.push({
        task: "gin_clean_pending_list",
        table,
        reason: "pending_list",
        fields: { index },
        work: async () => {
          const pendingPages = await cleanPendingList(db, index);
          return pendingPages > 0 ? { pendingPages } : null;
        },
      });
    }
    if (!plan.task) continue;
    const step = { table, reason: plan.reason, fields: { pages, notVisiblePages: pages - allVisiblePages } };
    if (plan.task === "vacuum_analyze") {
      const work = async () => {
        await db.execute(sql`vacuum ${quoted(table)}`);
        onVacuumed(table);
        return {};
      };
      steps.push({ ...step, task: "vacuum", work });
    }
    const work = async () => (await db.execute(sql`analyze ${quoted(table)}`), {});
    steps.push({ ...step, task: "analyze", work });
  }
  return steps;
}

/** Carries out one step: timed, logged, published for the metrics (lib/metrics.ts). */
async function perform({ task, table, reason, fields, work }: Step, cause: string): Promise<UpkeepTaskRun> {
  const started = performance.now();
  const logged = await work();
  const seconds = (performance.now() - started) / 1000;
  const ms = Math.round(seconds * 1000);
  if (!logged) return { task, table, reason, ms };
  log.info("db.upkeep", { task, table, reason, ms, ...fields, ...logged, cause });
  if (upkeepTasks.hasSubscribers) upkeepTasks.publish({ task, seconds } satisfies UpkeepTaskMessage);
  return { task, table, reason, ms };
}

const skipped = (why: UpkeepRun["skipped"]): UpkeepRun => ({
  ran: false,
  skipped: why,
  plans: [],
  tasks: [],
  longestMs: 0,
});

/**
 * One run over the embedded database: each table's plan (lib/db/upkeep-plan.ts) carried out, and every GIN
 * index's pending list merged (cheap, and it spares a sale the merge). One process at a time holds the job (a
 * lease in the database), so the server and a CLI through its socket never run it at once. On PostgreSQL, nothing.
 */
export async function runUpkeep(
  db: Database,
  /** `cause`: what asked for the run (start, schedule, retention…), for the log; `signal` stops it between tasks. */
  options: { cause: string; now?: Date; signal?: AbortSignal },
): Promise<UpkeepRun> {
  if (options.signal?.aborted || isDraining()) return skipped("stopped");
  if (!(await isEmbedded(db))) return skipped("autovacuum");
  const holder = randomUUID();
  if (!(await takeLease(db, UPKEEP_JOB, holder, LEASE_MS))) return skipped("lease_held");
  const now = options.now ?? new Date();
  const memory = memoryOf(db, now);
  let held = true;
  try {
    const tables = await readTables(db);
    const plans = planUpkeep(
      tables.map((table) => ({ ...table, vacuumedAt: memory.vacuumedAt.get(table.table) })),
      now,
      memory.startedAt,
    );
    const tasks: UpkeepTaskRun[] = [];
    for (const step of stepsOf(db, tables, plans, (table) => memory.vacuumedAt.set(table, now))) {
      // A draining server finishes its requests first: a VACUUM now would hold them (PGlite has one thread), and the
      // next start does what is left.
      if (options.signal?.aborted || isDraining()) break;
      if (tasks.length > 0) await sleep(BREATH_MS);
      // Renewed before each task; lost (the run outlived it), the rest is left to whoever has it now.
      held = await takeLease(db, UPKEEP_JOB, holder, LEASE_MS);
      if (!held) break;
      tasks.push(await perform(step, options.cause));
    }
    return { ran: true, plans, tasks, longestMs: Math.max(0, ...tasks.map((task) => task.ms)) };
  } finally {
    // The run's outcome (or its error) is what the caller hears; a lease not given back expires by itself.
    if (held) await releaseLease(db, UPKEEP_JOB, holder).catch(() => undefined);
  }
}

export interface UpkeepSchedule {
  /** A run as soon as the one under way (if any) ends; requests made meanwhile share it. Never rejects. */
  request(cause: string): Promise<UpkeepRun | undefined>;
  /** No more runs: the one under way stops after its current task, and this resolves when it has. */
  stop(): Promise<void>;
}

/**
 * The server's upkeep: a first run now, resolved before this is (the server awaits it before it is ready, so that
 * long first VACUUM holds no sale), then one every UPKEEP_EVERY_MS. A failed run is logged, and the next one tried.
 */
export async function startUpkeep(
  db: Database,
  /** Aborted when the server stops, even before this has resolved: the first run ends after its current task. */
  signal?: AbortSignal,
): Promise<UpkeepSchedule> {
  const stopping = new AbortController();
  signal?.addEventListener("abort", () => stopping.abort(), { once: true });
  let latest: Promise<unknown> = Promise.resolve();
  let queued: Promise<UpkeepRun | undefined> | undefined;
  const request = (cause: string): Promise<UpkeepRun | undefined> => {
    if (isDraining()) stopping.abort();
    if (stopping.signal.aborted) return Promise.resolve(undefined);
    if (queued) return queued;
    const run = latest.then(() => {
      queued = undefined;
      return runUpkeep(db, { cause, signal: stopping.signal }).catch((error: unknown) => {
        log.error("db.upkeep_failed", { cause, error });
        return undefined;
      });
    });
    queued = latest = run;
    return run;
  };
  const first = await request("start");
  if (first?.skipped === "autovacuum") return { request: async () => undefined, stop: async () => undefined };
  const timer = setInterval(() => void request("schedule"), UPKEEP_EVERY_MS).unref();
  return {
    request,
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await latest;
    },
  };
}
