import "server-only";
import { and, desc, eq, inArray, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { outcomeDetail, type SaleOutcome } from "@/lib/provider/outcome";
import type { PartnerSaleRequestBody } from "@/lib/provider/types";
import { newProtocol } from "@/lib/sales/protocol";
import type { Database } from "../connection";
import { prepared } from "../prepared";
import { agentActor, holdAuditTrail, recordAuditEvent } from "./audit-events";
import { eraseIfRequested } from "./customer-data";
import { agents, integrations, sales, type Sale, type SaleResolution, type SaleStatus } from "../schema";

/**
 * When a sale's row changes, as the changes feed (lib/db/queries/api-sales.ts) orders it: the clock when the row is
 * written, not the transaction's start (`now()`), which a statement waiting on a lock would date before rows that
 * committed while it waited.
 */
export const SALE_CHANGED_NOW = sql`clock_timestamp()`;

export type Claim = { claimed: true; sale: Sale } | { claimed: false; sale: Sale };

/**
 * Takes the right to call the upstream for a submission: a new row, or a `failed` one (nothing was sent)
 * moved back to `pending`. Anything else is returned as it stands, so a second submission never calls twice.
 * Raises nothing on a protocol already drawn, so it may run inside the caller's transaction (a scripted sale's).
 */
export async function claimSubmission(
  db: Database,
  input: {
    submissionId: string;
    /** Who sells (lib/sales/sell.ts): an agent, an integration (its API key), or an integration on an agent's behalf. */
    agentId: string | null;
    integrationId?: string | null;
    request: PartnerSaleRequestBody;
    /** The request's trace, which the sale's webhook deliveries continue (migration 0020). */
    traceparent?: string | null;
    /**
     * The caller records this attempt's offer-script evidence with the claim (lib/sales/submit-sale.ts). Without
     * it a failed sale that had evidence is not sent again: its evidence would describe another sale.
     */
    withEvidence?: boolean;
  },
  /** Where a new row's protocol comes from (a test may force a collision). */
  drawProtocol: () => string = newProtocol,
): Promise<Claim> {
  const insert = prepared(db, "claim_submission", (db, statementName) =>
    db
      .insert(sales)
      .values({
        submissionId: sql.placeholder("submissionId"),
        protocol: sql.placeholder("protocol"),
        agentId: sql.placeholder("agentId"),
        integrationId: sql.placeholder("integrationId"),
        request: sql.placeholder("request"),
        traceparent: sql.placeholder("traceparent"),
        hasEvidence: sql.placeholder("hasEvidence"),
        updatedAt: SALE_CHANGED_NOW,
      })
      // Any unique key: the submission id (claimed before) or the protocol (drawn before; drawn again below).
      .onConflictDoNothing()
      .returning()
      .prepare(statementName),
  );
  // Two sales drawing the same protocol (one chance in 3.5·10¹³ per pair) is settled by drawing again: a conflict
  // with no row under this submission id was the protocol's.
  for (let draw = 1; ; draw += 1) {
    const [inserted] = await insert.execute({
      ...input,
      integrationId: input.integrationId ?? null,
      traceparent: input.traceparent ?? null,
      hasEvidence: Boolean(input.withEvidence),
      protocol: drawProtocol(),
    });
    if (inserted) return { claimed: true, sale: inserted };

    const [retried] = await db
      .update(sales)
      .set({
        status: "pending",
        request: input.request,
        attempts: sql`${sales.attempts} + 1`,
        outcomeDetail: null,
        upstreamStatus: null,
        upstreamMessage: null,
        completedAt: null,
        updatedAt: SALE_CHANGED_NOW,
        ...(input.withEvidence ? { hasEvidence: true } : {}),
      })
      .where(
        and(
          eq(sales.submissionId, input.submissionId),
          // Only its own seller sends a failed sale again: the same agent and the same integration (or none).
          sql`${sales.agentId} is not distinct from ${input.agentId}`,
          sql`${sales.integrationId} is not distinct from ${input.integrationId ?? null}`,
          eq(sales.status, "failed"),
          // An erased sale, or one whose customer asked for erasure, is history: sending its key again answers what
          // was recorded, it does not sell anew with the customer's data.
          isNull(sales.personalDataErasedAt),
          isNull(sales.erasureRequestedAt),
          // On the row, not a subquery: a re-claim that waited on this row's lock re-reads it whole (0023).
          input.withEvidence ? undefined : eq(sales.hasEvidence, false),
        ),
      )
      .returning();
    if (retried) return { claimed: true, sale: retried };

    const existing = await findSaleRow(db, input.submissionId);
    if (existing) return { claimed: false, sale: existing };
    if (draw >= 3) throw new Error("No protocol could be drawn for a new sale: three draws were taken.");
  }
}

/** The ledger's columns for what the provider answered (or why no answer is trusted). */
export function outcomeColumns(outcome: SaleOutcome) {
  const answered = outcome.status === "accepted" || outcome.status === "rejected";
  return {
    status: outcome.status,
    upstreamStatus: outcome.httpStatus ?? null,
    upstreamMessage: answered ? outcome.message : null,
    outcomeDetail: outcomeDetail(outcome),
    rejectedFields: outcome.status === "rejected" ? outcome.fields : null,
  } satisfies Partial<Sale>;
}

/** The row was settled by someone else (a supervisor) before the provider's late answer arrived. */
export class SaleNotPendingError extends Error {
  override readonly name = "SaleNotPendingError";
}

/** What recording an outcome changed on the sale's row (and erasure's): the caller holds the rest since its claim. */
export type RecordedOutcome = Pick<
  Sale,
  | "status"
  | "upstreamStatus"
  | "upstreamMessage"
  | "outcomeDetail"
  | "rejectedFields"
  | "updatedAt"
  | "completedAt"
  // An erasure asked for while the provider answered: the answer must not offer to send a history sale again.
  | "erasureRequestedAt"
  | "personalDataErasedAt"
>;

export async function recordOutcome(
  db: Database,
  submissionId: string,
  outcome: SaleOutcome,
): Promise<RecordedOutcome> {
  const columns = outcomeColumns(outcome);
  const update = prepared(db, "record_outcome", (db, statementName) =>
    db
      .update(sales)
      .set({
        // Drizzle takes placeholders in set() only inside sql``, which skips the column's own encoding: the
        // jsonb value arrives as JSON text (see below).
        status: sql`${sql.placeholder("status")}`,
        upstreamStatus: sql`${sql.placeholder("upstreamStatus")}`,
        upstreamMessage: sql`${sql.placeholder("upstreamMessage")}`,
        outcomeDetail: sql`${sql.placeholder("outcomeDetail")}`,
        rejectedFields: sql`${sql.placeholder("rejectedFields")}::jsonb`,
        updatedAt: SALE_CHANGED_NOW,
        completedAt: sql`now()`,
      })
      .where(
        and(
          eq(sales.submissionId, sql.placeholder("submissionId")),
          // A slow call may outlive the sweep that gave up on it: its real answer still wins.
          or(
            eq(sales.status, "pending"),
            and(eq(sales.status, "unknown"), eq(sales.outcomeDetail, "interrupted")),
          ),
        ),
      )
      // Only what changed: the whole row (its request among it) would be read and decoded again for nothing.
      .returning({
        status: sales.status,
        upstreamStatus: sales.upstreamStatus,
        upstreamMessage: sales.upstreamMessage,
        outcomeDetail: sales.outcomeDetail,
        rejectedFields: sales.rejectedFields,
        updatedAt: sales.updatedAt,
        completedAt: sales.completedAt,
        erasureRequestedAt: sales.erasureRequestedAt,
        personalDataErasedAt: sales.personalDataErasedAt,
      })
      .prepare(statementName),
  );
  const [sale] = await update.execute({
    ...columns,
    rejectedFields: columns.rejectedFields === null ? null : JSON.stringify(columns.rejectedFields),
    submissionId,
  });
  if (!sale)
    throw new SaleNotPendingError(`Submission ${submissionId} was not pending when its outcome arrived.`);
  return sale;
}

/**
 * How many sales wait for an outcome: `pending` (on their way to the provider now) and `unknown` (a supervisor
 * must settle them). Read through the status index: a handful of rows among millions of settled ones.
 */
export async function countOpenSales(db: Database): Promise<{ pending: number; unknown: number }> {
  const rows = await db
    .select({ status: sales.status, count: sql<number>`count(*)::int` })
    .from(sales)
    .where(inArray(sales.status, ["pending", "unknown"]))
    .groupBy(sales.status);
  const count = (status: SaleStatus) => rows.find((row) => row.status === status)?.count ?? 0;
  return { pending: count("pending"), unknown: count("unknown") };
}

/** A `pending` row older than any call could take belongs to a process that died mid-call. */
export async function markStalePendingUnknown(
  db: Database,
  olderThanMs: number,
  /** Rows whose answer this process holds, waiting to be written: not orphans. */
  keep: readonly string[] = [],
): Promise<number> {
  const stale = await db
    .update(sales)
    .set({
      status: "unknown",
      outcomeDetail: "interrupted",
      updatedAt: SALE_CHANGED_NOW,
      completedAt: sql`now()`,
    })
    .where(
      and(
        eq(sales.status, "pending"),
        lt(sales.updatedAt, sql`now() - ${olderThanMs} * interval '1 millisecond'`),
        keep.length > 0 ? notInArray(sales.submissionId, [...keep]) : undefined,
      ),
    )
    .returning({ submissionId: sales.submissionId });
  return stale.length;
}

/**
 * The customer's latest sale of this plan here that the provider may hold (accepted, or sent with no answer yet
 * or none known), other than `exceptSubmissionId` (the sale being sent, which may be a replay).
 */
export async function findHeldSaleOf(
  db: Database,
  input: { customerDocument: string; planId: string; exceptSubmissionId: string; agentId?: string },
): Promise<Pick<Sale, "protocol" | "createdAt" | "status"> | undefined> {
  const { agentId, ...common } = input;
  // Two statements, each prepared once: every agent's sales, or (KNOWN_CUSTOMER_SCOPE=own) one agent's.
  const find = prepared(db, agentId ? "find_held_sale_of_agent" : "find_held_sale_of", (db, statementName) =>
    db
      .select({ protocol: sales.protocol, createdAt: sales.createdAt, status: sales.status })
      .from(sales)
      .where(
        and(
          sql`${sales.request} ->> 'customerDocument' = ${sql.placeholder("customerDocument")}`,
          sql`lower(${sales.request} ->> 'planId') = lower(${sql.placeholder("planId")})`,
          inArray(sales.status, ["accepted", "unknown", "pending"]),
          sql`${sales.submissionId} <> ${sql.placeholder("exceptSubmissionId")}`,
          agentId ? sql`${sales.agentId} = ${sql.placeholder("agentId")}` : undefined,
        ),
      )
      .orderBy(desc(sales.createdAt))
      .limit(1)
      .prepare(statementName),
  );
  const [sale] = await find.execute(agentId ? { ...common, agentId } : common);
  return sale;
}

/** One sale's row as the ledger holds it, nothing joined. */
export async function findSaleRow(db: Database, submissionId: string): Promise<Sale | undefined> {
  const [row] = await db.select().from(sales).where(eq(sales.submissionId, submissionId)).limit(1);
  return row;
}

/** One sale with the names of who sold it (its agent, its integration, or both) and of who settled it. */
export async function findSale(
  db: Database,
  submissionId: string,
): Promise<
  | (Sale & { agentName: string | null; integrationName: string | null; settlerName: string | null })
  | undefined
> {
  const settler = alias(agents, "settler");
  const [row] = await db
    .select({
      sale: sales,
      agentName: agents.name,
      integrationName: integrations.name,
      settlerName: settler.name,
    })
    .from(sales)
    .leftJoin(agents, eq(agents.id, sales.agentId))
    .leftJoin(integrations, eq(integrations.id, sales.integrationId))
    .leftJoin(settler, eq(settler.id, sales.settledBy))
    .where(eq(sales.submissionId, submissionId))
    .limit(1);
  if (!row) return undefined;
  const { sale, ...names } = row;
  return { ...sale, ...names };
}

/**
 * A supervisor settles an `unknown` sale after asking the provider: registered → accepted; not registered →
 * failed (nothing to duplicate, so it may be sold again). What the provider answered stays in `outcomeDetail`;
 * the settlement is `resolution`, by whom and when, and the audit trail records it in the same transaction (with
 * the erasure its customer asked for meanwhile, if they did). Only `unknown` rows move; returns undefined
 * otherwise: the row as settled, before any erasure.
 */
export async function settleUnknownSale(
  db: Database,
  input: { submissionId: string; supervisor: { id: string; door: string }; resolution: SaleResolution },
): Promise<Sale | undefined> {
  return db.transaction(async (tx) => {
    await holdAuditTrail(tx);
    const [sale] = await tx
      .update(sales)
      .set({
        status: input.resolution === "registered" ? "accepted" : "failed",
        resolution: input.resolution,
        settledBy: input.supervisor.id,
        settledAt: sql`now()`,
        updatedAt: SALE_CHANGED_NOW,
      })
      .where(and(eq(sales.submissionId, input.submissionId), eq(sales.status, "unknown")))
      .returning();
    if (sale) {
      // Its customer asked for erasure while it waited: now that it is settled, it goes.
      if (sale.erasureRequestedAt) await eraseIfRequested(tx, sale.submissionId);
      await recordAuditEvent(tx, {
        action: "sale.settled",
        ...agentActor(input.supervisor),
        protocol: sale.protocol,
        details: { resolution: input.resolution },
      });
    }
    return sale;
  });
}
