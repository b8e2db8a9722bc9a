import { setTimeout as sleep } from "node:timers/promises";
import { queryOnce } from "../../scripts/test-postgres";

/**
 * What autovacuum still owes the app's tables on the server at `url`: those past one of its thresholds (dead rows,
 * rows inserted since a vacuum, rows changed since an analyze, as the server's settings put them), and how many of
 * its workers are running. Nothing owed and no worker: the state PostgreSQL's own upkeep keeps a ledger in.
 */
async function owed(url: string): Promise<{ tables: string[]; workers: number }> {
  const [row] = await queryOnce<{ tables: string[] | null; workers: number }>(
    url,
    `with setting as (
       select
         current_setting('autovacuum_vacuum_threshold')::float8 as vacuum_base,
         current_setting('autovacuum_vacuum_scale_factor')::float8 as vacuum_scale,
         current_setting('autovacuum_vacuum_insert_threshold')::float8 as insert_base,
         current_setting('autovacuum_vacuum_insert_scale_factor')::float8 as insert_scale,
         current_setting('autovacuum_analyze_threshold')::float8 as analyze_base,
         current_setting('autovacuum_analyze_scale_factor')::float8 as analyze_scale
     )
     select
       (select array_agg(t.relname::text order by t.relname)
          from pg_stat_user_tables t join pg_class c on c.oid = t.relid, setting s
          where t.n_dead_tup > s.vacuum_base + s.vacuum_scale * greatest(c.reltuples, 0)
             or t.n_ins_since_vacuum > s.insert_base + s.insert_scale * greatest(c.reltuples, 0)
             or t.n_mod_since_analyze > s.analyze_base + s.analyze_scale * greatest(c.reltuples, 0)) as tables,
       (select count(*)::int from pg_stat_activity
          where backend_type = 'autovacuum worker' and datname = current_database()) as workers`,
  );
  const { tables, workers } = row!;
  return { tables: tables ?? [], workers };
}

/**
 * Waits until PostgreSQL's autovacuum has caught up with a freshly written ledger (at most `timeoutMs`): the pages
 * are timed on the database as it serves day to day, not while a worker vacuums the million rows just written. The
 * seconds it took are returned; past the timeout, what is still owed is logged and the bench goes on.
 */
export async function waitForAutovacuum(
  url: string,
  log: (line: string) => void,
  timeoutMs = 15 * 60_000,
): Promise<number> {
  const started = performance.now();
  const [settings] = await queryOnce<{ autovacuum: string; trackCounts: string }>(
    url,
    "select current_setting('autovacuum') as autovacuum, current_setting('track_counts') as \"trackCounts\"",
  );
  if (settings?.autovacuum !== "on" || settings.trackCounts !== "on") {
    log("autovacuum is off on this server: nothing to wait for");
    return 0;
  }
  let last = "";
  // The counters reach pg_stat_user_tables a moment after the writes: two clean readings in a row, not one.
  let clean = 0;
  for (;;) {
    const { tables, workers } = await owed(url);
    const seconds = (performance.now() - started) / 1000;
    clean = tables.length === 0 && workers === 0 ? clean + 1 : 0;
    if (clean === 2) {
      log(`autovacuum caught up after ${seconds.toFixed(0)} s`);
      return seconds;
    }
    const state = `autovacuum: ${workers} worker(s), owed: ${tables.join(", ") || "none"}`;
    if (state !== last) log(state);
    last = state;
    if (seconds * 1000 > timeoutMs) {
      log(`autovacuum had not caught up after ${seconds.toFixed(0)} s; timing anyway`);
      return seconds;
    }
    await sleep(2_000);
  }
}
