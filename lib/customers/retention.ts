import "server-only";
import { randomUUID } from "node:crypto";
import type { Database } from "@/lib/db/connection";
import { recordAuditEvent, type AuditActor } from "@/lib/db/queries/audit-events";
import {
  eraseExpiredBatch,
  eraseRequestedBatch,
  rebuildSalesStatistics,
} from "@/lib/db/queries/customer-data";
import { releaseLease, takeLease } from "@/lib/db/queries/job-leases";

export const RETENTION_JOB = "customer-data-retention";
/** Long enough for a batch; a holder that dies frees the job this long after its last batch. */
const LEASE_MS = 60_000;
/**
 * Small batches, each its own statement: PGlite serves every request on one connection, and a batch holds it
 * (about a tenth of a second for 500 sales there), so a first run over years of sales never stalls the agents.
 */
const BATCH = 500;
const DAY_MS = 86_400_000;

export interface RetentionRun {
  /** False when another instance (or the CLI) was running it: nothing was done here. */
  ran: boolean;
  /** Sales whose retention period ended. */
  expired: number;
  /** Sales whose customer asked for erasure while they were unsettled, settled since. */
  requested: number;
}

/**
 * One run of customer-data retention (LGPD art. 15-16): the personal data of settled sales older than
 * `retentionDays` (none when null) is erased in place, and so is that of settled sales a customer asked to erase.
 * One instance at a time holds the job (a lease in the database); the run records one audit event when it erased
 * anything, and then rebuilds the ledger's planner statistics. Periodic in every server (lib/server-start.ts), on
 * demand with `npm run customers -- purge`.
 */
export async function runRetention(
  db: Database,
  options: {
    retentionDays: number | null;
    /** The job itself for the periodic run, the operator for purge. */
    actor: AuditActor;
    reason?: string;
    now?: Date;
    batchSize?: number;
    /**
     * When to rebuild the planner statistics: after a run that erased anything (the periodic run), or after every
     * run (`purge`: run again after a failed rebuild, it rebuilds them though nothing is left to erase).
     */
    statistics?: "after-erasure" | "always";
  },
): Promise<RetentionRun> {
  const { retentionDays, batchSize = BATCH } = options;
  const holder = randomUUID();
  if (!(await takeLease(db, RETENTION_JOB, holder, LEASE_MS)))
    return { ran: false, expired: 0, requested: 0 };
  let held = true;
  try {
    const createdBefore =
      retentionDays === null
        ? null
        : new Date((options.now ?? new Date()).getTime() - retentionDays * DAY_MS);
    const drain = async (batch: () => Promise<string[]>) => {
      let erased = 0;
      while (held) {
        const protocols = await batch();
        erased += protocols.length;
        if (protocols.length < batchSize) break;
        // Renewed between batches; lost (this run outlived its lease), the rest is left to whoever has it now.
        held = await takeLease(db, RETENTION_JOB, holder, LEASE_MS);
      }
      return erased;
    };
    // Customers' requests first: a sale both asked about and expired is erased as asked (keeping the digest its
    // customer is found by).
    const requested = await drain(() => eraseRequestedBatch(db, { limit: batchSize }));
    const expired = createdBefore
      ? await drain(() => eraseExpiredBatch(db, { createdBefore, limit: batchSize }))
      : 0;
    if (expired + requested > 0) {
      await recordAuditEvent(db, {
        action: "retention.erased",
        ...options.actor,
        reason: options.reason ?? null,
        details: {
          expired,
          requested,
          retentionDays,
          createdBefore: createdBefore?.toISOString() ?? null,
        },
      });
    }
    // Once a run, not once a batch: the statistics sample the whole table.
    if (expired + requested > 0 || options.statistics === "always") await rebuildSalesStatistics(db);
    return { ran: true, expired, requested };
  } finally {
    // The run's outcome (or its error) is what the caller hears; a lease not given back expires by itself.
    if (held) await releaseLease(db, RETENTION_JOB, holder).catch(() => undefined);
  }
}
