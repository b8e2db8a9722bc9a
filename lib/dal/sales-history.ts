import "server-only";
import { getDb } from "@/lib/db";
import { listAgents } from "@/lib/db/queries/agents";
import {
  countHistoryByStatus,
  exportCsvBatch,
  listHistoryPage,
  type HistoryCriteria,
  type SaleListRow,
} from "@/lib/db/queries/sales-history";
import type { SaleStatus } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { ERASURE_LABELS, maskCpf } from "@/lib/format";
import { HISTORY_PAGE_SIZE, type HistoryFilter, type HistoryView } from "@/lib/sales/history-filter";
import { saleSearch } from "@/lib/sales/history-search";
import { formatProtocol } from "@/lib/sales/protocol";
import { configuredPlanName } from "./plans";
import { appTimeZone } from "./sales";
import type { SessionAgent } from "./session";

export interface SaleListItem {
  submissionId: string;
  /** As people read it, "7KQ2M-X9R4B". */
  protocol: string;
  status: SaleStatus;
  /** The customer's name, or why it was erased ("dados removidos (retenção)"). */
  customerName: string;
  /** Whether the customer's personal data was erased: `customerName` then says why. */
  erased: boolean;
  maskedCpf: string;
  planName: string;
  /** The partner's own id for the customer (ID do cliente no parceiro), when the agent typed one. */
  externalId: string | null;
  /** Who sold it: the agent, the integration whose API key sent it, or both (lib/sales/seller.ts words them). */
  agentName: string | null;
  integrationName: string | null;
  createdAt: Date;
  /** The provider's own words, verbatim. */
  upstreamMessage: string | null;
  /** The supervisor who confirmed an `unknown` sale with the provider, and when. */
  settledBy: string | null;
  settledAt: Date | null;
}

function toListItem(row: SaleListRow): SaleListItem {
  return {
    submissionId: row.submissionId,
    protocol: formatProtocol(row.protocol),
    status: row.status,
    customerName: row.personalDataErasure
      ? ERASURE_LABELS[row.personalDataErasure]
      : row.request.customerName,
    erased: row.personalDataErasure !== null,
    maskedCpf: maskCpf(row.request.customerDocument),
    planName: configuredPlanName(row.request.planId),
    externalId: row.request.externalId ?? null,
    agentName: row.agentName,
    integrationName: row.integrationName,
    createdAt: row.createdAt,
    upstreamMessage: row.upstreamMessage,
    settledBy: row.settlerName,
    settledAt: row.settledAt,
  };
}

/** An agent sees their own sales whatever the address asks; a supervisor everyone's, or one agent's. */
function criteriaFor(agent: SessionAgent, filter: HistoryFilter): HistoryCriteria {
  return {
    agentId: agent.role === "supervisor" ? filter.agentId : agent.id,
    status: filter.status,
    from: filter.from,
    to: filter.to,
    search: filter.search ? saleSearch(filter.search) : undefined,
    timeZone: appTimeZone(),
  };
}

/** A search matching more sales than this is not counted per status: the chips say "mais de 1.000". */
export const SEARCH_COUNT_CAP = 1_000;

export interface HistoryPageView {
  sales: SaleListItem[];
  /** Sales per status under the filter, whatever status it picks (the chips); null past a search's cap. */
  counts: Record<SaleStatus, number> | null;
  /** The submissionIds the "Mais recentes" / "Mais antigas" links continue from, when there is such a page. */
  newerThan: string | null;
  olderThan: string | null;
  /** The address named a page that does not exist (a forged or foreign cursor): the page says so. */
  pageNotFound: boolean;
}

/** One page of the history (`/sales`) with its counts. */
export async function readHistoryPage(agent: SessionAgent, view: HistoryView): Promise<HistoryPageView> {
  const db = await getDb();
  const criteria = criteriaFor(agent, view.filter);
  // Independent reads: on PostgreSQL they run side by side on the pool's connections.
  const [first, counts] = await Promise.all([
    listHistoryPage(db, criteria, { limit: HISTORY_PAGE_SIZE, cursor: view.cursor }),
    countHistoryByStatus(db, criteria, { searchCap: SEARCH_COUNT_CAP }),
  ]);
  // Back at the top, "Mais recentes" shows the newest page whole, as the history's first page does.
  const page =
    view.cursor?.direction === "newer" && !first.hasNewer
      ? await listHistoryPage(db, criteria, { limit: HISTORY_PAGE_SIZE })
      : first;
  return {
    sales: page.rows.map(toListItem),
    counts,
    newerThan: page.hasNewer && page.rows.length > 0 ? page.rows[0]!.submissionId : null,
    olderThan: page.hasOlder && page.rows.length > 0 ? page.rows.at(-1)!.submissionId : null,
    pageNotFound: view.cursor !== undefined && page.rows.length === 0,
  };
}

/**
 * Every sale the agent may see under `filter`, newest first, as the export's CSV lines (written by the database:
 * `exportCsvBatch`), one batch of `batchSize` sales in memory at a time.
 */
export async function* visibleSalesCsv(
  agent: SessionAgent,
  filter: HistoryFilter,
  batchSize = 10_000,
): AsyncGenerator<{ csv: Uint8Array; rows: number }> {
  const db = await getDb();
  const criteria = criteriaFor(agent, filter);
  const names = { plans: getConfig().plans ?? [] };
  let after: string | undefined;
  do {
    const batch = await exportCsvBatch(db, criteria, { limit: batchSize, after, names });
    if (batch.rows > 0) yield batch;
    after = batch.last;
  } while (after);
}

export interface AgentOption {
  id: string;
  /** "Ana Souza · ana@partner.example": two agents may share a name. */
  label: string;
}

/** The agents a supervisor may narrow the history to; nobody else gets the list. */
export async function agentOptions(agent: SessionAgent): Promise<AgentOption[]> {
  if (agent.role !== "supervisor") return [];
  const everyone = await listAgents(await getDb());
  return everyone
    .map((someone) => ({ id: someone.id, label: `${someone.name} · ${someone.email}` }))
    .sort((a, b) => a.label.localeCompare(b.label, "pt-BR"));
}
