import "server-only";
import { randomUUID } from "node:crypto";
import type { Database } from "@/lib/db/connection";
import { holdAuditTrail, recordAuditEvent, type AuditActor } from "@/lib/db/queries/audit-events";
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
  /** Sales whose customer asked for erasure while they were open, closed since. */
  requested: number;
}

/**
 * One run of customer-data retention (LGPD art. 15-16): the personal data of closed sales older than
 * `retentionDays` (none when null) is erased in place, and so is that of closed sales a customer asked to erase.
 * One instance at a time holds the job (a lease in the database); each batch it erases is an audit event with its
 * protocols, and the ledger's planner statistics are rebuilt once the run erased anything. Periodic in every
 * server (lib/server-start.ts), on demand with `npm run customers -- purge`.
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
    const details = { retentionDays, createdBefore: createdBefore?.toISOString() ?? null };
    // Each batch is recorded in its own transaction, with its protocols: what was erased is on the trail even if
    // the run stops halfway, and a row holds at most one batch's protocols (500, about 7 kB), whatever the run's
    // size (a first run over years of sales erases hundreds of thousands).
    const drain = async (kind: "expired" | "requested", batch: (tx: Database) => Promise<string[]>) => {
      let erased = 0;
      while (held) {
        const protocols = await db.transaction(async (tx) => {
          await holdAuditTrail(tx);
          const protocols = await batch(tx);
          if (protocols.length > 0) {
            await recordAuditEvent(tx, {
              action: "retention.erased",
              ...options.actor,
              reason: options.reason ?? null,
              details: {
                expired: kind === "expired" ? protocols.length : 0,
                requested: kind === "requested" ? protocols.length : 0,
                ...details,
                protocols,
              },
            });
          }
          return protocols;
        });
        erased += protocols.length;
        if (protocols.length < batchSize) break;
        // Renewed between batches; lost (this run outlived its lease), the rest is left to whoever has it now.
        held = await takeLease(db, RETENTION_JOB, holder, LEASE_MS);
      }
      return erased;
    };
    // Customers' requests first: a sale both asked about and expired is erased as asked (keeping the digest its
    // customer is found by).
    const requested = await drain("requested", (tx) => eraseRequestedBatch(tx, { limit: batchSize }));
    const expired = createdBefore
      ? await drain("expired", (tx) => eraseExpiredBatch(tx, { createdBefore, limit: batchSize }))
      : 0;
    // Once a run, not once a batch: the statistics sample the whole table.
    if (expired + requested > 0 || options.statistics === "always") await rebuildSalesStatistics(db);
    return { ran: true, expired, requested };
  } finally {
    // The run's outcome (or its error) is what the caller hears; a lease not given back expires by itself.
    if (held) await releaseLease(db, RETENTION_JOB, holder).catch(() => undefined);
  }
}
