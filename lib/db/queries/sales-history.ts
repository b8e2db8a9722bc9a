import "server-only";
import { and, asc, count, desc, eq, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { HistoryCursor } from "@/lib/sales/history-filter";
import type { SaleSearch } from "@/lib/sales/history-search";
import type { PartnerSaleRequestBody } from "@/lib/provider/types";
import { ERASURE_LABELS, STATUS_LABELS } from "@/lib/format";
import type { Database } from "../connection";
import { copyCsv } from "../copy";
import { agents, integrations, sales, saleEvidence, type Sale, type SaleStatus } from "../schema";
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
  /** Who sold it: the agent, the integration whose API key sent it, or both (a sale on an agent's behalf). */
  agentName: string | null;
  integrationName: string | null;
  createdAt: Date;
  upstreamMessage: string | null;
  settlerName: string | null;
  settledAt: Date | null;
  personalDataErasure: Sale["personalDataErasure"];
}

const field = (name: keyof PartnerSaleRequestBody) => sql`(${sales.request} ->> ${sql.raw(`'${name}'`)})`;

/** `%`, `_` and `\` typed in the search box are themselves, not LIKE's wildcards. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

// Each branch matches an index of migration 0010: the trigram ones take part of a name (folded by sales_fold,
// migration 0009, stored as the sale is written and applied to what was typed) or of an e-mail; the rest are
// equalities. `forCopy`: COPY reads each value once a statement (lib/db/copy.ts), where the planner cannot fold
// what was typed before it runs; folded in a subquery of its own, it is folded once, not once a sale matched
// (twice as fast an export of "maria").
function searchCondition(search: SaleSearch, { forCopy }: { forCopy: boolean }): SQL | undefined {
  const contains = search.contains === null ? null : `%${likeEscaped(search.contains)}%`;
  const folded = forCopy ? sql`(select sales_fold(${contains}))` : sql`sales_fold(${contains})`;
  return or(
    search.submissionId ? eq(sales.submissionId, search.submissionId) : undefined,
    search.protocol ? eq(sales.protocol, search.protocol) : undefined,
    search.cpf ? sql`${field("customerDocument")} = ${search.cpf}` : undefined,
    search.phone ? sql`${field("customerPhone")} = ${search.phone}` : undefined,
    sql`${field("externalId")} = ${search.text}`,
    contains === null ? undefined : sql`${sales.customerNameFolded} like ${folded}`,
    contains === null ? undefined : sql`${field("customerEmail")} like ${contains}`,
  );
}

/** Day boundaries in the call center's zone: `from` 00:00 up to the start of the day after `to`. */
function criteriaConditions(
  criteria: HistoryCriteria,
  { withStatus, forCopy = false }: { withStatus: boolean; forCopy?: boolean },
): SQL[] {
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
    criteria.search ? searchCondition(criteria.search, { forCopy }) : undefined,
  ].filter((condition) => condition !== undefined);
}

/**
 * A page's position is a sale's own (creation time, submissionId), read by the database from the cursor's row, so
 * a page boundary never falls between two sales created within the same millisecond (timestamps keep
 * microseconds; a JavaScript Date would not). The cursor's row must be one the criteria's agent may see: a cursor
 * naming someone else's sale finds nothing. A cursor that names no sale gives an empty page. `inclusive` takes the
 * cursor's own sale too (the last of an export batch).
 */
function cursorCondition(
  db: Database,
  criteria: HistoryCriteria,
  cursor: HistoryCursor,
  { inclusive = false }: { inclusive?: boolean } = {},
): SQL {
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
  const row = sql`(${sales.createdAt}, ${sales.submissionId})`;
  if (cursor.direction === "older")
    return inclusive ? sql`${row} <= (${position})` : sql`${row} < (${position})`;
  return inclusive ? sql`${row} >= (${position})` : sql`${row} > (${position})`;
}

/** The sales a page or an export batch reads: under the criteria, past the cursor if there is one. */
function historyWhere(
  db: Database,
  criteria: HistoryCriteria,
  cursor: HistoryCursor | undefined,
  { forCopy = false }: { forCopy?: boolean } = {},
) {
  return and(
    ...criteriaConditions(criteria, { withStatus: true, forCopy }),
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
  const settler = alias(agents, "settler");
  const newer = cursor?.direction === "newer";
  const fetched = await db
    .select({
      submissionId: sales.submissionId,
      protocol: sales.protocol,
      status: sales.status,
      request: sales.request,
      agentName: agents.name,
      integrationName: integrations.name,
      createdAt: sales.createdAt,
      upstreamMessage: sales.upstreamMessage,
      settlerName: settler.name,
      settledAt: sales.settledAt,
      personalDataErasure: sales.personalDataErasure,
    })
    .from(sales)
    .leftJoin(agents, eq(agents.id, sales.agentId))
    .leftJoin(integrations, eq(integrations.id, sales.integrationId))
    .leftJoin(settler, eq(settler.id, sales.settledBy))
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

/** What the export writes in words: a plan's name by its id (any case), as the pages show it. */
export interface ExportNames {
  plans: readonly { id: string; name: string }[];
}

// Cells a spreadsheet would run as a formula (=, +, -, @, their full-width forms, tab or CR first) get a leading
// `'` (OWASP, CSV injection); an empty text is an empty cell, as NULL is (COPY would write "" for it). The first
// character is compared as a code point (`ascii`): no text is made for it, row after row.
const FORMULA_STARTS = sql.raw(
  ["=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠"].map((start) => start.codePointAt(0)).join(", "),
);
const spreadsheetText = (value: SQL) =>
  sql`case when ascii(${value}) in (${FORMULA_STARTS}) then '''' || ${value} else nullif(${value}, '') end`;

/** A column of the export's `sale` subquery. */
const sale = (column: string) => sql.raw(`sale.${column}`);

// `DD/MM/YYYY HH24:MI`: copyCsv writes a timestamp's text day first; to_char cost three times as much a row.
const minutesIn = (time: SQL, timeZone: string) => sql`left((${time} at time zone ${timeZone})::text, 16)`;

/**
 * One sale as the export's cells, in the header's order, formatted as the pages format them (`lib/format`,
 * `formatProtocol`, the plan's name): the time to the minute in the app's zone, the protocol grouped, the status in
 * words, the CPF masked. sales-history.test.ts holds this against the pages' values, written by csv-stringify.
 */
function exportCells(criteria: HistoryCriteria, names: ExportNames): SQL {
  const statusLabel = sql.join(
    Object.entries(STATUS_LABELS).map(([status, label]) => sql`when ${status} then ${label}`),
    sql` `,
  );
  // Each name is a constant the planner neutralises once. A sale holds its plan's id as configured (parsePlanId),
  // compared as it is; only an id no plan has in that spelling is lowered (lower() is the dearest cell in PGlite).
  const whenPlan = (id: string, name: string) => sql`when ${id} then ${spreadsheetText(sql`${name}`)}`;
  const plan = names.plans.length
    ? sql`case ${sale("plan_id")} ${sql.join(
        names.plans.map(({ id, name }) => whenPlan(id, name)),
        sql` `,
      )} else case lower(${sale("plan_id")}) ${sql.join(
        names.plans.map(({ id, name }) => whenPlan(id.toLowerCase(), name)),
        sql` `,
      )} else ${spreadsheetText(sale("plan_id"))} end end`
    : spreadsheetText(sale("plan_id"));
  const document = sale("customer_document");
  return sql.join(
    [
      minutesIn(sale("created_at"), criteria.timeZone),
      sql`left(${sale("protocol")}, 5) || '-' || substr(${sale("protocol")}, 6)`,
      sql`case ${sale("status")} ${statusLabel} end`,
      // The seller in two columns, each empty when that seller took no part: a spreadsheet filters on either.
      sql`agent.name`,
      sql`integration.name`,
      // An erased sale's customer is the reason their data is gone (the request holds empty texts then).
      sql`case ${sale("personal_data_erasure")} ${sql.join(
        Object.entries(ERASURE_LABELS).map(([reason, label]) => sql`when ${reason} then ${label}`),
        sql` `,
      )} else ${spreadsheetText(sale("customer_name"))} end`,
      sql`'***.' || substr(${document}, 4, 3) || '.' || substr(${document}, 7, 3) || '-**'`,
      plan,
      spreadsheetText(sale("external_id")),
      spreadsheetText(sale("upstream_message")),
      sql`settler.name`,
      minutesIn(sale("resolved_at"), criteria.timeZone),
      // A scripted sale's evidence (docs/selling.md: "The evidence of a sale"): each confirmation as "id time", in order.
      spreadsheetText(sql`evidence.script_version`),
      sql`evidence.script_hash`,
      spreadsheetText(sql`(select string_agg((item ->> 'id') || ' ' ||
        left(((item ->> 'confirmedAt')::timestamptz at time zone ${criteria.timeZone})::text, 19), ', '
        order by position) from jsonb_array_elements(evidence.confirmations) with ordinality as c(item, position))`),
      spreadsheetText(sql`evidence.recording_id`),
    ],
    sql`, `,
  );
}

// A seller's name as its cell, made once an agent or an integration rather than once a sale.
const agentCells = sql`(select ${agents.id}, ${spreadsheetText(sql`${agents.name}`)} as name from ${agents})`;
const integrationCells = sql`(select ${integrations.id}, ${spreadsheetText(sql`${integrations.name}`)} as name
  from ${integrations})`;

/**
 * The next `limit` sales under the criteria, newest first, older than the sale `after` names, as CSV lines the
 * database writes (COPY): the export's read, same criteria, order and keyset as the pages. Formatting a million
 * sales in JavaScript, after decoding them out of the database, held the export near 20-30k rows/s; COPY writes
 * them where they are. COPY takes no parameters, and a LIMIT there could cut a sale that arrived meanwhile, so the
 * batch's last sale is found first (by the index, as a page finds its rows) and the COPY reads down to it. `last`
 * names it when more may follow.
 */
export async function exportCsvBatch(
  db: Database,
  criteria: HistoryCriteria,
  { limit, after, names }: { limit: number; after?: string; names: ExportNames },
): Promise<{ csv: Uint8Array; rows: number; last?: string }> {
  const cursor = after ? ({ direction: "older", submissionId: after } as const) : undefined;
  const where = historyWhere(db, criteria, cursor);
  const [last] = await db
    .select({ submissionId: sales.submissionId })
    .from(sales)
    .where(where)
    .orderBy(desc(sales.createdAt), desc(sales.submissionId))
    .offset(limit - 1)
    .limit(1);
  const upToLast = last
    ? cursorCondition(
        db,
        criteria,
        { direction: "newer", submissionId: last.submissionId },
        { inclusive: true },
      )
    : undefined;
  const batchWhere = and(historyWhere(db, criteria, cursor, { forCopy: true }), upToLast);
  // The request's fields are read once a sale, in the subquery: `offset 0` keeps the planner from copying each
  // `->>` into every cell that reads it (two or three a field, most of the cells' time in PGlite).
  const batch = sql`
    select ${exportCells(criteria, names)}
    from (
      select ${sales.createdAt}, ${sales.submissionId}, ${sales.protocol}, ${sales.status}, ${sales.agentId},
        ${sales.integrationId}, ${sales.upstreamMessage}, ${sales.settledBy}, ${sales.settledAt},
        ${sales.personalDataErasure},
        ${field("customerName")} as customer_name, ${field("customerDocument")} as customer_document,
        ${field("planId")} as plan_id, ${field("externalId")} as external_id
      from ${sales} ${batchWhere ? sql`where ${batchWhere}` : sql.empty()} offset 0
    ) sale
    left join ${agentCells} agent on agent.id = sale.agent_id
    left join ${integrationCells} integration on integration.id = sale.integration_id
    left join ${agentCells} settler on settler.id = sale.resolved_by
    left join ${saleEvidence} evidence on evidence.submission_id = sale.submission_id
    order by sale.created_at desc, sale.submission_id desc`;
  const { csv, rows } = await copyCsv(db, batch);
  return { csv, rows, last: last?.submissionId };
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
  // A common word's first matches, newest first as the page reads them: the planner walks the creation index, over
  // the pages the list has just read, where a sequential scan from the oldest sales would read others, and through
  // a ring of buffers it does not keep (PGlite: 12 ms instead of 30 for "nascimento" at a million sales). A rare
  // one's matches still come from the trigram indexes.
  const matches = (
    capped ? matching.orderBy(desc(sales.createdAt), desc(sales.submissionId)).limit(searchCap + 1) : matching
  ).as("matches");
  const rows = await db
    .select({ status: matches.status, sales: count() })
    .from(matches)
    .groupBy(matches.status);
  for (const row of rows) counts[row.status] = row.sales;
  return capped && rows.reduce((sum, row) => sum + row.sales, 0) > searchCap ? null : counts;
}
