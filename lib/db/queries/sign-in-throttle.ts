import "server-only";
import { inArray, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { signInThrottle } from "../schema";

export interface ThrottlePolicy {
  maxFailures: number;
  windowMs: number;
  /** Lockout length for the first lockout; each further one doubles it, up to `maxLockoutMs`. */
  baseLockoutMs: number;
  maxLockoutMs: number;
}

/** Milliseconds until the latest lock on these keys ends; 0 when none holds. */
export async function lockRemainingMs(db: Database, keys: string[], now: Date): Promise<number> {
  const rows = await db
    .select({ lockedUntil: signInThrottle.lockedUntil })
    .from(signInThrottle)
    .where(inArray(signInThrottle.key, keys));
  return Math.max(0, ...rows.map((row) => (row.lockedUntil ? row.lockedUntil.getTime() - now.getTime() : 0)));
}

/** Counts one failure on `key` in a single atomic statement; locks the key when the window's limit is reached. */
export async function recordFailure(
  db: Database,
  key: string,
  policy: ThrottlePolicy,
  now: Date,
): Promise<void> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const windowStart = sql`${new Date(now.getTime() - policy.windowMs).toISOString()}::timestamptz`;
  const current = sql`case when ${signInThrottle.windowStartedAt} < ${windowStart} then 1 else ${signInThrottle.failures} + 1 end`;
  const lockMs = sql`least(${policy.maxLockoutMs}, ${policy.baseLockoutMs} * power(2, ${signInThrottle.lockouts}))`;
  await db
    .insert(signInThrottle)
    .values({ key, failures: 1, windowStartedAt: now })
    .onConflictDoUpdate({
      target: signInThrottle.key,
      set: {
        failures: sql`case when ${current} >= ${policy.maxFailures} then 0 else ${current} end`,
        windowStartedAt: sql`case when ${signInThrottle.windowStartedAt} < ${windowStart} or ${current} >= ${policy.maxFailures} then ${at} else ${signInThrottle.windowStartedAt} end`,
        lockedUntil: sql`case when ${current} >= ${policy.maxFailures} then ${at} + (${lockMs} * interval '1 millisecond') else ${signInThrottle.lockedUntil} end`,
        lockouts: sql`case when ${current} >= ${policy.maxFailures} then ${signInThrottle.lockouts} + 1 else ${signInThrottle.lockouts} end`,
      },
    });
}

export async function clearFailures(db: Database, key: string): Promise<void> {
  await db.delete(signInThrottle).where(sql`${signInThrottle.key} = ${key}`);
}
