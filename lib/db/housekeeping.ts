/**
 * Pruning rows nobody can use any more (ended sessions, old sign-in counters) is housekeeping, not part of the
 * request: each kind runs at most once per interval per database handle, on whichever request comes first after
 * it is due. A flood of sign-ins then costs one delete a minute, not one per attempt.
 */
const PRUNE_INTERVAL_MS = 60_000;
const lastRuns = new WeakMap<object, Map<string, number>>();

/** Whether the housekeeping task `task` on `db` is due at `now`; if so, it is marked as run. */
export function housekeepingDue(db: object, task: string, now: Date): boolean {
  let runs = lastRuns.get(db);
  if (!runs) lastRuns.set(db, (runs = new Map()));
  const last = runs.get(task);
  if (last !== undefined && Math.abs(now.getTime() - last) < PRUNE_INTERVAL_MS) return false;
  runs.set(task, now.getTime());
  return true;
}
