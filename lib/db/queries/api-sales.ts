import "server-only";
import { and, desc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database } from "../connection";
import { agents, integrations, saleEvidence, sales, type SaleStatus } from "../schema";

/**
 * The reads of /api/v1/sales: one sale, a search newest first, and the changes feed. Each returns the sale with
 * its sellers and settler by name, as lib/api/sale-representation.ts shows them.
 */

const settler = alias(agents, "settler");

/** Microseconds since the epoch, exact: the feed's cursor keeps the database's own precision, not a JS Date's. */
const changedMicros = sql<string>`(extract(epoch from ${sales.updatedAt}) * 1000000)::bigint::text`;

const row = {
  submissionId: sales.submissionId,
  protocol: sales.protocol,
  status: sales.status,
  request: sales.request,
  upstreamStatus: sales.upstreamStatus,
  upstreamMessage: sales.upstreamMessage,
  rejectedFields: sales.rejectedFields,
  outcomeDetail: sales.outcomeDetail,
  resolution: sales.resolution,
  settledAt: sales.settledAt,
  createdAt: sales.createdAt,
  updatedAt: sales.updatedAt,
  completedAt: sales.completedAt,
  personalDataErasedAt: sales.personalDataErasedAt,
  agentId: sales.agentId,
  agentName: agents.name,
  integrationName: integrations.name,
  settlerId: sales.settledBy,
  settlerName: settler.name,
  // A scripted sale's evidence, joined on its key (null for any other sale): no read a sale.
  evidence: {
    scriptVersion: saleEvidence.scriptVersion,
    scriptHash: saleEvidence.scriptHash,
    confirmations: saleEvidence.confirmations,
    recordingId: saleEvidence.recordingId,
  },
  changedMicros,
};

function selectSales(db: Database) {
  return db
    .select(row)
    .from(sales)
    .leftJoin(agents, eq(agents.id, sales.agentId))
    .leftJoin(integrations, eq(integrations.id, sales.integrationId))
    .leftJoin(settler, eq(settler.id, sales.settledBy))
    .leftJoin(saleEvidence, eq(saleEvidence.submissionId, sales.submissionId));
}

export type ApiSaleRow = NonNullable<Awaited<ReturnType<typeof findApiSale>>>;

export async function findApiSale(db: Database, submissionId: string) {
  const [found] = await selectSales(db).where(eq(sales.submissionId, submissionId)).limit(1);
  return found;
}

/** Several sales at once (the webhooks' dispatcher renders a batch), by submission id; those not found are absent. */
export async function findApiSales(db: Database, submissionIds: readonly string[]) {
  if (submissionIds.length === 0) return new Map<string, ApiSaleRow>();
  const rows = await selectSales(db).where(inArray(sales.submissionId, [...submissionIds]));
  return new Map(rows.map((row) => [row.submissionId, row]));
}

/** Who sold the submission, if the ledger holds it. */
export async function findSubmissionSellers(db: Database, submissionId: string) {
  const [found] = await db
    .select({ agentId: sales.agentId, integrationId: sales.integrationId, status: sales.status })
    .from(sales)
    .where(eq(sales.submissionId, submissionId))
    .limit(1);
  return found;
}

export interface SaleSearch {
  protocol?: string;
  externalId?: string;
  status?: SaleStatus;
  createdFrom?: Date;
  createdTo?: Date;
  /** The last sale of the previous page: the next page holds the sales older than it. */
  after?: string;
  limit: number;
}

/**
 * Sales matching every filter given, newest first, `limit + 1` of them (the extra one says a next page exists).
 * Each filter reads its index: protocol (unique), externalId (sales_external_id_idx), status
 * (sales_status_created_idx), the period (sales_created_idx).
 */
export async function searchSales(db: Database, search: SaleSearch) {
  const where: (SQL | undefined)[] = [
    search.protocol ? eq(sales.protocol, search.protocol) : undefined,
    search.externalId ? sql`${sales.request} ->> 'externalId' = ${search.externalId}` : undefined,
    search.status ? eq(sales.status, search.status) : undefined,
    search.createdFrom ? gte(sales.createdAt, search.createdFrom) : undefined,
    search.createdTo ? lt(sales.createdAt, search.createdTo) : undefined,
    search.after
      ? sql`(${sales.createdAt}, ${sales.submissionId}) < (select created_at, submission_id from ${sales} where submission_id = ${search.after})`
      : undefined,
  ];
  return selectSales(db)
    .where(and(...where))
    .orderBy(desc(sales.createdAt), desc(sales.submissionId))
    .limit(search.limit + 1);
}

/** A point in the changes feed: the time of a change (microseconds since the epoch) and the sale it changed. */
export interface ChangePoint {
  micros: string;
  submissionId: string;
}

/**
 * How long a change waits before the feed shows it. Rows are stamped when written (SALE_CHANGED_NOW) but become
 * visible when their transaction commits, a little later: a reader that had already passed that time would never
 * see them. Every write of a sale commits within milliseconds of its stamp; the feed stays this far behind.
 */
export const FEED_HORIZON_MS = 5_000;

/**
 * The sales whose row changed after `after`, oldest change first, up to `limit`; a sale that changed again since
 * shows once, at its last change. Read off sales_updated_idx by keyset.
 */
export async function saleChanges(
  db: Database,
  { after, limit, horizonMs = FEED_HORIZON_MS }: { after: ChangePoint; limit: number; horizonMs?: number },
) {
  return selectSales(db)
    .where(
      and(
        sql`(${sales.updatedAt}, ${sales.submissionId}) > (timestamptz 'epoch' + ${after.micros}::bigint * interval '1 microsecond', ${after.submissionId}::uuid)`,
        sql`${sales.updatedAt} < clock_timestamp() - ${horizonMs} * interval '1 millisecond'`,
      ),
    )
    .orderBy(sales.updatedAt, sales.submissionId)
    .limit(limit);
}
