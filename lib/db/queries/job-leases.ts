import "server-only";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { jobLeases } from "../schema";

/**
 * Takes (or, for its holder, renews) the lease on `job` for `ttlMs`: it is free, has expired (its holder died
 * mid-run) or is `holder`'s already. One statement, so of several instances asking at once exactly one gets it.
 */
export async function takeLease(db: Database, job: string, holder: string, ttlMs: number): Promise<boolean> {
  const expiresAt = sql`now() + ${ttlMs} * interval '1 millisecond'`;
  const taken = await db
    .insert(jobLeases)
    .values({ job, holder, expiresAt })
    .onConflictDoUpdate({
      target: jobLeases.job,
      set: { holder, expiresAt },
      setWhere: sql`${jobLeases.expiresAt} < now() or ${jobLeases.holder} = ${holder}`,
    })
    .returning({ holder: jobLeases.holder });
  return taken.length === 1;
}

/** Gives the lease back, if `holder` still has it: free at once for whoever asks next. */
export async function releaseLease(db: Database, job: string, holder: string): Promise<void> {
  await db
    .update(jobLeases)
    .set({ expiresAt: sql`'-infinity'` })
    .where(and(eq(jobLeases.job, job), eq(jobLeases.holder, holder)));
}
