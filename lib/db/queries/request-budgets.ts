import "server-only";
import { lt, sql } from "drizzle-orm";
import { housekeepingDue } from "../housekeeping";
import type { Database } from "../connection";
import { prepared } from "../prepared";
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

/** Rows of keys nobody used for a day go (at most once a minute per database handle). */
export async function forgetOldBudgets(db: Database, now: Date): Promise<void> {
  if (!housekeepingDue(db, "request-budgets", now)) return;
  await db
    .delete(requestBudgets)
    .where(lt(requestBudgets.windowStartedAt, new Date(now.getTime() - FORGET_AFTER_MS)));
}

/**
 * What an upsert of one request into a key's row sets on conflict: one more in the window, or a new window. The
 * window opens at the key's first request and lasts `windowMs`: a burst is counted in one window, not split across
 * a boundary of the clock's. The statement's placeholder `openAfter` is `now - windowMs`.
 */
export function spendOnConflict() {
  const open = sql`${requestBudgets.windowStartedAt} > ${sql.placeholder("openAfter")}::timestamptz`;
  return {
    target: requestBudgets.key,
    set: {
      used: sql`case when ${open} then ${requestBudgets.used} + 1 else 1 end`,
      windowStartedAt: sql`case when ${open} then ${requestBudgets.windowStartedAt} else excluded.window_started_at end`,
    },
  };
}

/** What a spend returned, read against its policy. */
export function budgetSpent(row: { used: number; windowStartedAt: Date }, policy: BudgetPolicy): BudgetSpent {
  return {
    allowed: row.used <= policy.limit,
    renewsAt: new Date(row.windowStartedAt.getTime() + policy.windowMs),
  };
}

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
  await forgetOldBudgets(db, now);
  const statement = prepared(db, "spend_budget", (db, statementName) =>
    db
      .insert(requestBudgets)
      .values({
        key: sql.placeholder("key"),
        windowStartedAt: sql`${sql.placeholder("now")}::timestamptz`,
        used: 1,
      })
      .onConflictDoUpdate(spendOnConflict())
      .returning({ used: requestBudgets.used, windowStartedAt: requestBudgets.windowStartedAt })
      .prepare(statementName),
  );
  const [row] = await statement.execute({
    key,
    now: now.toISOString(),
    openAfter: new Date(now.getTime() - policy.windowMs).toISOString(),
  });
  return budgetSpent(row!, policy);
}
