import "server-only";
import { lt, sql } from "drizzle-orm";
import { housekeepingDue } from "../housekeeping";
import type { Database } from "../connection";
import { requestBudgets } from "../schema";

export interface BudgetPolicy {
  /** Requests allowed in one window. */
  limit: number;
  windowMs: number;
}

export interface BudgetSpent {
  /** Whether this request was within the budget. */
  allowed: boolean;
  /** When the window ends and the budget is whole again. */
  renewsAt: Date;
}

// A key's row outlives its window only to be overwritten by the next one; rows of keys nobody used for a day go.
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * Spends one request of `key`'s budget in its current window, in one atomic statement, so instances
 * counting at once cannot overtake the limit. Refused requests are counted too: asking harder does not help.
 */
export async function spendBudget(
  db: Database,
  key: string,
  policy: BudgetPolicy,
  now: Date = new Date(),
): Promise<BudgetSpent> {
  if (housekeepingDue(db, "request-budgets", now)) {
    await db
      .delete(requestBudgets)
      .where(lt(requestBudgets.windowStartedAt, new Date(now.getTime() - FORGET_AFTER_MS)));
  }
  // The window opens at the key's first request and lasts `windowMs`: a burst is counted in one window, not split
  // across a boundary of the clock's.
  const open = sql`${requestBudgets.windowStartedAt} > ${new Date(now.getTime() - policy.windowMs).toISOString()}::timestamptz`;
  const [row] = await db
    .insert(requestBudgets)
    .values({ key, windowStartedAt: now, used: 1 })
    .onConflictDoUpdate({
      target: requestBudgets.key,
      set: {
        used: sql`case when ${open} then ${requestBudgets.used} + 1 else 1 end`,
        windowStartedAt: sql`case when ${open} then ${requestBudgets.windowStartedAt} else excluded.window_started_at end`,
      },
    })
    .returning({ used: requestBudgets.used, windowStartedAt: requestBudgets.windowStartedAt });
  return {
    allowed: row!.used <= policy.limit,
    renewsAt: new Date(row!.windowStartedAt.getTime() + policy.windowMs),
  };
}
