import "server-only";
import { and, asc, count, desc, eq, or, sql, type SQL } from "drizzle-orm";
import { alias, type PgColumn } from "drizzle-orm/pg-core";
import type { HistoryCursor } from "@/lib/sales/history-filter";
import type { SaleSearch } from "@/lib/sales/history-search";
import type { PartnerSaleRequestBody } from "@/lib/partner-api/types";
import type { Database } from "../connection";
import { agents, sales, type SaleStatus } from "../schema";
import { dayCountsAreIn, sumDayCounts } from "./sale-day-counts";

/** What the history, its export and the dashboard's links narrow the ledger to, ready for SQL. */
export interface HistoryCriteria {
  /** Only this agent's sales: the viewer's own (agents), or the one a supervisor chose. */
  agentId?: string;
  status?: SaleStatus;
  /** Calendar days (`YYYY-MM-DD`) in `timeZone`, both included. */
  from?: string;
  to?: string;
  search?: SaleSearch;
  timeZone: string;
}

/** What a list or an export shows of the request as sent. */
export type SaleListRequest = Pick<
  PartnerSaleRequestBody,
  "customerName" | "customerDocument" | "planId" | "externalId"
>;

export interface SaleListRow {
  submissionId: string;
  protocol: string;
  status: SaleStatus;
  request: SaleListRequest;
  agentName: string;
  createdAt: Date;
  upstreamMessage: string | null;
  resolverName: string | null;
  resolvedAt: Date | null;
}

const field = (name: keyof PartnerSaleRequestBody) => sql`(${sales.request} ->> ${sql.raw(`'${name}'`)})`;

/** `%`, `_` and `\` typed in the search box are themselves, not LIKE's wildcards. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

// Each branch matches an index of migration 0010: the trigram ones take part of a name (folded by sales_fold,
// migration 0009, stored as the sale is written and applied to what was typed) or of an e-mail; the rest are
// equalities.
function searchCondition(search: SaleSearch): SQL | undefined {
  const contains = search.contains === null ? null : `%${likeEscaped(search.contains)}%`;
  return or(
    search.submissionId ? eq(sales.submissionId, search.submissionId) : undefined,
    search.protocol ? eq(sales.protocol, search.protocol) : undefined,
    search.cpf ? sql`${field("customerDocument")} = ${search.cpf}` : undefined,
    search.phone ? sql`${field("customerPhone")} = ${search.phone}` : undefined,
    sql`${field("externalId")} = ${search.text}`,
    contains === null ? undefined : sql`${sales.customerNameFolded} like sales_fold(${contains})`,
    contains === null ? undefined : sql`${field("customerEmail")} like ${contains}`,
  );
}

/** Day boundaries in the call center's zone: `from` 00:00 up to the start of the day after `to`. */
function criteriaConditions(criteria: HistoryCriteria, { withStatus }: { withStatus: boolean }): SQL[] {
  const zone = criteria.timeZone;
  return [
    criteria.agentId ? eq(sales.agentId, criteria.agentId) : undefined,
    withStatus && criteria.status ? eq(sales.status, criteria.status) : undefined,
    criteria.from
      ? sql`${sales.createdAt} >= (${criteria.from}::date::timestamp at time zone ${zone})`
      : undefined,
    criteria.to
      ? sql`${sales.createdAt} < ((${criteria.to}::date + 1)::timestamp at time zone ${zone})`
      : undefined,
    criteria.search ? searchCondition(criteria.search) : undefined,
  ].filter((condition) => condition !== undefined);
}

/**
 * A page's position is a sale's own (creation time, submissionId), read by the database from the cursor's row, so
 * a page boundary never falls between two sales created within the same millisecond (timestamps keep
 * microseconds; a JavaScript Date would not). The cursor's row must be one the criteria's agent may see: a cursor
 * naming someone else's sale finds nothing. A cursor that names no sale gives an empty page.
 */
function cursorCondition(db: Database, criteria: HistoryCriteria, cursor: HistoryCursor): SQL {
  const at = alias(sales, "cursor");
  const position = db
    .select({ createdAt: at.createdAt, submissionId: at.submissionId })
    .from(at)
    .where(
      and(
        eq(at.submissionId, cursor.submissionId),
        criteria.agentId ? eq(at.agentId, criteria.agentId) : undefined,
      ),
    );
  return cursor.direction === "older"
    ? sql`(${sales.createdAt}, ${sales.submissionId}) < (${position})`
    : sql`(${sales.createdAt}, ${sales.submissionId}) > (${position})`;
}

/** The sales a page or an export batch reads: under the criteria, past the cursor if there is one. */
function historyWhere(db: Database, criteria: HistoryCriteria, cursor: HistoryCursor | undefined) {
  return and(
    ...criteriaConditions(criteria, { withStatus: true }),
    cursor ? cursorCondition(db, criteria, cursor) : undefined,
  );
}

export interface HistoryPage {
  /** Newest first. */
  rows: SaleListRow[];
  hasNewer: boolean;
  hasOlder: boolean;
}

/**
 * One page of the history, newest first. Keyset paging on (creation time, submissionId): a sale made while someone
 * pages never shifts the pages they have not read yet, so nothing is missed or shown twice.
 */
export async function listHistoryPage(
  db: Database,
  criteria: HistoryCriteria,
  { limit, cursor }: { limit: number; cursor?: HistoryCursor },
): Promise<HistoryPage> {
  const resolver = alias(agents, "resolver");
  const newer = cursor?.direction === "newer";
  const fetched = await db
    .select({
      submissionId: sales.submissionId,
      protocol: sales.protocol,
      status: sales.status,
      request: sales.request,
      agentName: agents.name,
      createdAt: sales.createdAt,
      upstreamMessage: sales.upstreamMessage,
      resolverName: resolver.name,
      resolvedAt: sales.resolvedAt,
    })
    .from(sales)
    .innerJoin(agents, eq(agents.id, sales.agentId))
    .leftJoin(resolver, eq(resolver.id, sales.resolvedBy))
    .where(historyWhere(db, criteria, cursor))
    .orderBy(
      ...(newer
        ? [asc(sales.createdAt), asc(sales.submissionId)]
        : [desc(sales.createdAt), desc(sales.submissionId)]),
    )
    // One more than the page tells whether another page follows.
    .limit(limit + 1);
  const more = fetched.length > limit;
  const rows = fetched.slice(0, limit);
  return newer
    ? { rows: rows.reverse(), hasNewer: more, hasOlder: true }
    : { rows, hasNewer: cursor !== undefined, hasOlder: more };
}

/** A sale of an export batch as `json_build_array` lays it out (the order of `exportBatch`'s columns). */
type ExportTuple = [
  submissionId: string,
  protocol: string,
  status: SaleStatus,
  agentName: string,
  createdAtMs: number,
  upstreamMessage: string | null,
  resolverName: string | null,
  resolvedAtMs: number | null,
  customerName: string,
  customerDocument: string,
  planId: string,
  externalId: string | null,
];

/** A time as JavaScript's milliseconds (JSON has no date). */
const epochMs = (column: PgColumn) => sql`floor(extract(epoch from ${column}) * 1000)`;

/**
 * The next `limit` sales under the criteria, newest first, older than the sale `after` names: the export's read.
 * The database hands over each batch as one JSON text (`json_agg`) rather than a row per sale with a dozen values
 * each: decoding rows dominated the export's time (about 40 µs a sale in PGlite's WebAssembly), and one text is
 * decoded by JSON.parse at native speed. Same criteria, order and keyset as the pages.
 */
export async function exportBatch(
  db: Database,
  criteria: HistoryCriteria,
  { limit, after }: { limit: number; after?: string },
): Promise<SaleListRow[]> {
  const resolver = alias(agents, "resolver");
  const batch = db
    .select({
      createdAt: sales.createdAt,
      submissionId: sales.submissionId,
      sale: sql`json_build_array(
        ${sales.submissionId}, ${sales.protocol}, ${sales.status}, ${agents.name}, ${epochMs(sales.createdAt)},
        ${sales.upstreamMessage}, ${resolver.name}, ${epochMs(sales.resolvedAt)}, ${field("customerName")},
        ${field("customerDocument")}, ${field("planId")}, ${field("externalId")})`.as("sale"),
    })
    .from(sales)
    .innerJoin(agents, eq(agents.id, sales.agentId))
    .leftJoin(resolver, eq(resolver.id, sales.resolvedBy))
    .where(historyWhere(db, criteria, after ? { direction: "older", submissionId: after } : undefined))
    .orderBy(desc(sales.createdAt), desc(sales.submissionId))
    .limit(limit)
    .as("batch");
  const [result] = await db
    .select({
      sales: sql<
        string | null
      >`json_agg(${batch.sale} order by ${batch.createdAt} desc, ${batch.submissionId} desc)::text`,
    })
    .from(batch);
  const tuples: ExportTuple[] = result?.sales ? JSON.parse(result.sales) : [];
  return tuples.map(
    ([
      submissionId,
      protocol,
      status,
      agentName,
      createdAtMs,
      upstreamMessage,
      resolverName,
      resolvedAtMs,
      customerName,
      customerDocument,
      planId,
      externalId,
    ]) => ({
      submissionId,
      protocol,
      status,
      agentName,
      createdAt: new Date(createdAtMs),
      upstreamMessage,
      resolverName,
      resolvedAt: resolvedAtMs === null ? null : new Date(resolvedAtMs),
      request: { customerName, customerDocument, planId, externalId: externalId ?? undefined },
    }),
  );
}

export const noSales = (): Record<SaleStatus, number> => ({
  pending: 0,
  accepted: 0,
  rejected: 0,
  failed: 0,
  unknown: 0,
});

/**
 * How many sales each status has under the criteria, whatever status they filter by (the chips' counts). Whole days
 * of everyone's sales come from `sale_day_counts` (a few thousand rows, where the ledger has millions); one agent's
 * from their index alone; a search's from its matches, counted up to `searchCap` (past it, null: a search that
 * broad is narrowed, not counted, and counting it would read every match).
 */
export async function countHistoryByStatus(
  db: Database,
  criteria: HistoryCriteria,
  { searchCap }: { searchCap?: number } = {},
): Promise<Record<SaleStatus, number> | null> {
  const counts = noSales();
  if (!criteria.agentId && !criteria.search && (await dayCountsAreIn(db, criteria.timeZone))) {
    for (const row of await sumDayCounts(db, criteria)) counts[row.status] = row.sales;
    return counts;
  }
  const capped = criteria.search && searchCap !== undefined;
  const matching = db
    .select({ status: sales.status })
    .from(sales)
    .where(and(...criteriaConditions(criteria, { withStatus: false })));
  const matches = (capped ? matching.limit(searchCap + 1) : matching).as("matches");
  const rows = await db
    .select({ status: matches.status, sales: count() })
    .from(matches)
    .groupBy(matches.status);
  for (const row of rows) counts[row.status] = row.sales;
  return capped && rows.reduce((sum, row) => sum + row.sales, 0) > searchCap ? null : counts;
}
