import "server-only";
import { and, eq, gte, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { signInThrottle } from "../schema";

export interface ThrottlePolicy {
  maxFailures: number;
  windowMs: number;
  /** Lockout length for the first lockout; each further one doubles it, up to `maxLockoutMs`. */
  baseLockoutMs: number;
  maxLockoutMs: number;
}

// A key's row is kept a day after its last attempt or lock, so repeated lockouts keep growing; then it goes.
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

const timestamp = (date: Date) => sql`${date.toISOString()}::timestamptz`;

function lockFor(policy: ThrottlePolicy, at: Date) {
  const lockMs = sql`least(${policy.maxLockoutMs}, ${policy.baseLockoutMs} * power(2, ${signInThrottle.lockouts}))`;
  return sql`${timestamp(at)} + (${lockMs} * interval '1 millisecond')`;
}

/**
 * Counts an attempt on `key` BEFORE its password is checked, in one atomic statement, so parallel guesses cannot
 * overtake the limit: an attempt beyond `maxFailures` in the window locks the key instead of being checked.
 * Returns the lock's end when the key is (now) locked: the attempt must then not be checked.
 */
export async function countAttempt(
  db: Database,
  key: string,
  policy: ThrottlePolicy,
  now: Date,
): Promise<Date | null> {
  const at = timestamp(now);
  const locked = sql`${signInThrottle.lockedUntil} > ${at}`;
  const windowOver = sql`${signInThrottle.windowStartedAt} < ${timestamp(new Date(now.getTime() - policy.windowMs))}`;
  const count = sql`case when ${windowOver} then 1 else ${signInThrottle.failures} + 1 end`;
  const overflows = sql`(not coalesce(${locked}, false) and ${count} > ${policy.maxFailures})`;
  const keep = <T>(column: T, value: ReturnType<typeof sql>) =>
    sql`case when coalesce(${locked}, false) then ${column} else ${value} end`;
  const [row] = await db
    .insert(signInThrottle)
    .values({ key, failures: 1, windowStartedAt: now })
    .onConflictDoUpdate({
      target: signInThrottle.key,
      set: {
        failures: keep(signInThrottle.failures, sql`case when ${overflows} then 0 else ${count} end`),
        windowStartedAt: keep(
          signInThrottle.windowStartedAt,
          sql`case when ${windowOver} or ${overflows} then ${at} else ${signInThrottle.windowStartedAt} end`,
        ),
        lockedUntil: keep(
          signInThrottle.lockedUntil,
          sql`case when ${overflows} then ${lockFor(policy, now)} else ${signInThrottle.lockedUntil} end`,
        ),
        lockouts: keep(
          signInThrottle.lockouts,
          sql`case when ${overflows} then ${signInThrottle.lockouts} + 1 else ${signInThrottle.lockouts} end`,
        ),
      },
    })
    .returning({ lockedUntil: signInThrottle.lockedUntil });
  const until = row?.lockedUntil;
  return until && until.getTime() > now.getTime() ? until : null;
}

/**
 * After a checked attempt failed: when it was the window's last allowed one, the key locks now (so the person is
 * told at once). Returns the lock's end, or null.
 */
export async function lockIfSpent(
  db: Database,
  key: string,
  policy: ThrottlePolicy,
  now: Date,
): Promise<Date | null> {
  const [row] = await db
    .update(signInThrottle)
    .set({
      failures: 0,
      windowStartedAt: now,
      lockedUntil: lockFor(policy, now),
      lockouts: sql`${signInThrottle.lockouts} + 1`,
    })
    .where(
      and(
        eq(signInThrottle.key, key),
        gte(signInThrottle.failures, policy.maxFailures),
        or(isNull(signInThrottle.lockedUntil), lte(signInThrottle.lockedUntil, now)),
      ),
    )
    .returning({ lockedUntil: signInThrottle.lockedUntil });
  return row?.lockedUntil ?? null;
}

/** Takes back an attempt that turned out not to be a failure (a success, or one never checked). */
export async function uncountAttempt(db: Database, key: string): Promise<void> {
  await db
    .update(signInThrottle)
    .set({ failures: sql`greatest(${signInThrottle.failures} - 1, 0)` })
    .where(eq(signInThrottle.key, key));
}

export async function clearFailures(db: Database, key: string): Promise<void> {
  await db.delete(signInThrottle).where(eq(signInThrottle.key, key));
}

/** Rows with no attempt and no lock for a day. */
export async function pruneThrottle(db: Database, now: Date): Promise<void> {
  const before = new Date(now.getTime() - FORGET_AFTER_MS);
  await db
    .delete(signInThrottle)
    .where(
      and(
        lt(signInThrottle.windowStartedAt, before),
        or(isNull(signInThrottle.lockedUntil), lt(signInThrottle.lockedUntil, before)),
      ),
    );
}
