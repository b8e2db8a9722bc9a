/**
 * What the embedded database needs done to each table, decided from its pages: PGlite runs no autovacuum and keeps
 * no rows-changed counters (pg_stat_user_tables stays at zero), so the pages not all-visible stand for the rows
 * changed since the last VACUUM, and the pages added since pg_class.relpages for the rows added since the last
 * VACUUM or ANALYZE. Both are on disk: changes made while the app was stopped count too.
 */

export type UpkeepTask = "vacuum_analyze" | "analyze";

export type UpkeepReason =
  | "no_statistics"
  | "grew"
  | "not_visible"
  | "first_run"
  | "daily"
  | "empty"
  | "all_visible"
  | "below_threshold";

export interface TableState {
  table: string;
  /** Pages now. */
  pages: number;
  /** Pages the visibility map marks all-visible: a VACUUM set them, and no row on them changed since. */
  allVisiblePages: number;
  /** pg_class.relpages and reltuples as the last VACUUM, ANALYZE or CREATE INDEX left them (reltuples -1: never). */
  lastPages: number;
  lastTuples: number;
  /** Whether pg_statistic holds anything for it: CREATE INDEX sets reltuples, and only ANALYZE sets these. */
  hasStatistics: boolean;
  /** When this process last vacuumed the table; undefined if it has not. */
  vacuumedAt: Date | undefined;
}

export interface TablePlan {
  table: string;
  task: UpkeepTask | null;
  reason: UpkeepReason;
}

/** Fewer changed pages than this (128 kB, a few hundred sales) buy the planner and index-only scans no pause. */
export const MIN_CHANGED_PAGES = 16;
/** autovacuum_vacuum_scale_factor's default: a fifth of the table changed. */
export const NOT_VISIBLE_FRACTION = 0.2;
/** autovacuum_analyze_scale_factor's default: a tenth more rows moves the statistics. */
export const GROWTH_FRACTION = 0.1;
/** What stays under the thresholds is still made visible, and counted, once a day. */
export const DAILY_MS = 86_400_000;

function planTable(state: TableState, now: Date, startedAt: Date): TablePlan {
  const { table, pages, lastPages, vacuumedAt } = state;
  const notVisible = Math.max(0, pages - state.allVisiblePages);
  const plan = (task: UpkeepTask | null, reason: UpkeepReason) => ({ table, task, reason });
  if (pages === 0) return plan(null, "empty");
  // reltuples 0: the last ANALYZE found no rows, and so stored no statistics.
  if (!state.hasStatistics && state.lastTuples !== 0) {
    return plan(notVisible > 0 ? "vacuum_analyze" : "analyze", "no_statistics");
  }
  if (notVisible >= Math.max(NOT_VISIBLE_FRACTION * pages, MIN_CHANGED_PAGES)) {
    return plan("vacuum_analyze", "not_visible");
  }
  // A bulk import: its pages are new, so the VACUUM making them visible reads little more than the import did.
  if (pages - lastPages >= Math.max(GROWTH_FRACTION * lastPages, MIN_CHANGED_PAGES)) {
    return plan("vacuum_analyze", "grew");
  }
  // Changed before this process started: one that restarts more often than daily would never reach the daily rule.
  if (!vacuumedAt && notVisible >= MIN_CHANGED_PAGES) return plan("vacuum_analyze", "first_run");
  if (notVisible > 0 && now.getTime() - (vacuumedAt ?? startedAt).getTime() >= DAILY_MS) {
    return plan("vacuum_analyze", "daily");
  }
  return plan(null, notVisible === 0 ? "all_visible" : "below_threshold");
}

/** Each table's task (or none) and why; `startedAt` is when this process began looking after the database. */
export function planUpkeep(tables: TableState[], now: Date, startedAt: Date): TablePlan[] {
  return tables.map((state) => planTable(state, now, startedAt));
}
