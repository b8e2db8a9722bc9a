import "server-only";
import { apiSale, type ApiSale } from "@/lib/api/sale-representation";
import { feedCursor, readFeedStart, readSearchCursor, searchCursor } from "@/lib/api/cursors";
import type { ListSalesQuery } from "@/lib/api/requests";
import { getDb } from "@/lib/db";
import { findApiSale, saleChanges, searchSales, type ApiSaleRow } from "@/lib/db/queries/api-sales";
import { isUuid } from "@/lib/validation/sale";
import { readsCustomer, type ApiCaller } from "./api-caller";

/** A ledger row as the caller may see it: customer data and the provider's words only if it `readsCustomer`. */
export function apiSaleFor(caller: ApiCaller, row: ApiSaleRow): ApiSale {
  const withCustomer = readsCustomer(caller);
  return apiSale(withCustomer ? row : { ...row, upstreamMessage: null }, {
    seller: {
      agent: row.agentId && row.agentName ? { id: row.agentId, name: row.agentName } : null,
      integration: row.integrationName,
    },
    settledBy: row.settlerId && row.settlerName ? { id: row.settlerId, name: row.settlerName } : null,
    withCustomer,
  });
}

/** One sale by its submissionId, whoever sold it: a deployment serves one partner, whose systems see its sales. */
export async function readApiSale(caller: ApiCaller, submissionId: string): Promise<ApiSale | null> {
  if (!isUuid(submissionId)) return null;
  const row = await findApiSale(await getDb(), submissionId);
  return row ? apiSaleFor(caller, row) : null;
}

export type SalesPage =
  | { ok: true; sales: ApiSale[]; nextCursor: string | null }
  | { ok: false; fieldErrors: Record<string, string> };

const BAD_CURSOR = "Cursor inválido: use o nextCursor de uma resposta desta API.";

/**
 * GET /api/v1/sales: a search, newest first (`nextCursor` null on the last page), or the changes feed from
 * `updatedAfter` (`nextCursor` always set: the same one when nothing changed, to poll with).
 */
export async function listApiSales(caller: ApiCaller, query: ListSalesQuery): Promise<SalesPage> {
  const db = await getDb();
  if (query.updatedAfter !== undefined) {
    const after = readFeedStart(query.updatedAfter);
    if (!after) return { ok: false, fieldErrors: { updatedAfter: BAD_CURSOR } };
    const rows = await saleChanges(db, { after, limit: query.limit });
    const last = rows.at(-1);
    return {
      ok: true,
      sales: rows.map((row) => apiSaleFor(caller, row)),
      nextCursor: feedCursor(last ? { micros: last.changedMicros, submissionId: last.submissionId } : after),
    };
  }
  const after = query.cursor === undefined ? undefined : readSearchCursor(query.cursor);
  if (after === null) return { ok: false, fieldErrors: { cursor: BAD_CURSOR } };
  const rows = await searchSales(db, {
    protocol: query.protocol,
    externalId: query.externalId,
    status: query.status,
    createdFrom: query.createdFrom ? new Date(query.createdFrom) : undefined,
    createdTo: query.createdTo ? new Date(query.createdTo) : undefined,
    after,
    limit: query.limit,
  });
  const page = rows.slice(0, query.limit);
  return {
    ok: true,
    sales: page.map((row) => apiSaleFor(caller, row)),
    nextCursor: rows.length > query.limit ? searchCursor(page.at(-1)!.submissionId) : null,
  };
}
