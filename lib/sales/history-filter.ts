import type { SaleStatus } from "@/lib/db/schema";

/** The statuses the history filters by, in the order of its chips. */
export const STATUS_FILTERS = [
  "unknown",
  "failed",
  "rejected",
  "accepted",
] as const satisfies readonly SaleStatus[];

/** What the history (`/sales`) and its export (`/sales/export`) are narrowed to: their query string. */
export interface HistoryFilter {
  status?: (typeof STATUS_FILTERS)[number];
}

type SearchParams = URLSearchParams | Record<string, string | string[] | undefined>;

function first(params: SearchParams, name: string): string | undefined {
  const value = params instanceof URLSearchParams ? params.get(name) : params[name];
  return (Array.isArray(value) ? value[0] : value) ?? undefined;
}

/** Unknown values are ignored (the whole history), never an error: these are links people edit and share. */
export function parseHistoryFilter(params: SearchParams): HistoryFilter {
  const status = STATUS_FILTERS.find((candidate) => candidate === first(params, "status"));
  return status ? { status } : {};
}

/** "?status=unknown", or "" for the whole history. */
export function historyQuery(filter: HistoryFilter): string {
  const params = new URLSearchParams(filter.status ? { status: filter.status } : {});
  return params.size > 0 ? `?${params}` : "";
}
