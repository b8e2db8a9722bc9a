import "server-only";
import { getDb } from "@/lib/db";
import {
  findAcceptedSaleOf,
  findSale,
  listSales,
  resolveUnknownSale,
  type Resolution,
} from "@/lib/db/queries/sales";
import type { Sale, SaleStatus } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { formatDateTime, maskCpf } from "@/lib/format";
import { log } from "@/lib/log";
import { partnerApi } from "@/lib/partner-api";
import { outcomeView, type OutcomeView } from "@/lib/sales/outcome-view";
import { formatProtocol } from "@/lib/sales/protocol";
import { submitSale, type SubmissionResult } from "@/lib/sales/submit-sale";
import { createSaleSchema, isUuid, type ValidSale } from "@/lib/validation/sale";
import type { SessionAgent } from "./session";

export { isUuid as isSubmissionId } from "@/lib/validation/sale";

let built: { config: ReturnType<typeof getConfig>; schema: ReturnType<typeof createSaleSchema> } | undefined;

/** Built once per configuration: zod compiles a schema on its first parse, which costs more than the parse. */
export function saleSchema() {
  const config = getConfig();
  if (built?.config !== config) {
    built = { config, schema: createSaleSchema({ planIds: config.plans?.map((plan) => plan.id) ?? null }) };
  }
  return built.schema;
}

/** What the browser and API clients learn about a submission: no personal data, no upstream internals. */
export interface SaleResult extends OutcomeView {
  submissionId: string;
  /** The protocol as people read it, "7KQ2M-X9R4B". */
  protocol: string;
  replay: boolean;
  /** The provider's own words, shown quoted, apart from ours. */
  upstreamMessage: string | null;
}

function toResult(sale: Sale, replay: boolean): SaleResult {
  return {
    submissionId: sale.submissionId,
    protocol: formatProtocol(sale.protocol),
    ...outcomeView(sale),
    replay,
    upstreamMessage: sale.upstreamMessage,
  };
}

/**
 * Nothing was sent: the ledger already holds an accepted sale of this plan for this CPF, so the form asks the
 * agent to confirm before sending another.
 */
export interface KnownCustomer {
  status: "known-customer";
  /** The earlier sale's protocol and when it was made. */
  protocol: string;
  soldAt: string;
}

export async function knownCustomerSale(
  submissionId: string,
  sale: ValidSale,
): Promise<KnownCustomer | null> {
  const earlier = await findAcceptedSaleOf(await getDb(), {
    customerDocument: sale.customerDocument,
    planId: sale.planId,
    exceptSubmissionId: submissionId,
  });
  return earlier
    ? {
        status: "known-customer",
        protocol: formatProtocol(earlier.protocol),
        soldAt: formatDateTime(earlier.createdAt),
      }
    : null;
}

export type SubmitForAgentResult =
  | { kind: "result"; result: SaleResult; outcome: Sale["status"]; unknownReason: string | null }
  | Exclude<SubmissionResult, { kind: "completed" }>;

/** The agent's own submission: ledger, upstream, outcome. Callers have verified the session and the input. */
export async function submitSaleAsAgent(
  agent: SessionAgent,
  submissionId: string,
  sale: ValidSale,
): Promise<SubmitForAgentResult> {
  const config = getConfig();
  const result = await submitSale(
    { db: await getDb(), partnerApi: partnerApi(), partnerSource: config.partnerApi.partnerSource },
    { agentId: agent.id, submissionId, sale },
  );
  if (result.kind !== "completed") return result;
  return {
    kind: "result",
    result: toResult(result.sale, result.replay),
    outcome: result.sale.status,
    unknownReason: result.sale.status === "unknown" ? result.sale.outcomeDetail : null,
  };
}

/** A submission still `pending` in the ledger: another request is waiting for the provider's answer. */
export const inFlightResult = (sale: Sale): SaleResult => toResult(sale, true);

export interface SaleListItem {
  submissionId: string;
  /** As people read it, "7KQ2M-X9R4B". */
  protocol: string;
  status: SaleStatus;
  customerName: string;
  maskedCpf: string;
  planName: string;
  agentName: string;
  createdAt: Date;
}

function planName(planId: string): string {
  return getConfig().plans?.find((plan) => plan.id.toLowerCase() === planId.toLowerCase())?.name ?? planId;
}

/** An agent sees their own sales; a supervisor sees everyone's. */
export async function listVisibleSales(agent: SessionAgent, status?: SaleStatus): Promise<SaleListItem[]> {
  const rows = await listSales(await getDb(), {
    agentId: agent.role === "supervisor" ? undefined : agent.id,
    status,
    limit: 200,
  });
  return rows.map((row) => ({
    submissionId: row.submissionId,
    protocol: formatProtocol(row.protocol),
    status: row.status,
    customerName: row.request.customerName,
    maskedCpf: maskCpf(row.request.customerDocument),
    planName: planName(row.request.planId),
    agentName: row.agentName,
    createdAt: row.createdAt,
  }));
}

export interface SaleDetail {
  submissionId: string;
  /** As people read it, "7KQ2M-X9R4B". */
  protocol: string;
  status: SaleStatus;
  request: Sale["request"];
  planName: string;
  agentName: string;
  attempts: number;
  upstreamStatus: number | null;
  upstreamMessage: string | null;
  outcomeDetail: string | null;
  createdAt: Date;
  completedAt: Date | null;
  resolvedBy: string | null;
  resolvedAt: Date | null;
  /** Whether the viewer may settle this sale (a supervisor, on an `unknown` sale). */
  canResolve: boolean;
}

export async function getVisibleSale(agent: SessionAgent, submissionId: string): Promise<SaleDetail | null> {
  if (!isUuid(submissionId)) return null;
  const sale = await findSale(await getDb(), submissionId);
  if (!sale || (agent.role !== "supervisor" && sale.agentId !== agent.id)) return null;
  return {
    submissionId: sale.submissionId,
    protocol: formatProtocol(sale.protocol),
    status: sale.status,
    request: sale.request,
    planName: planName(sale.request.planId),
    agentName: sale.agentName,
    attempts: sale.attempts,
    upstreamStatus: sale.upstreamStatus,
    upstreamMessage: sale.upstreamMessage,
    outcomeDetail: sale.outcomeDetail,
    createdAt: sale.createdAt,
    completedAt: sale.completedAt,
    resolvedBy: sale.resolverName,
    resolvedAt: sale.resolvedAt,
    canResolve: agent.role === "supervisor" && sale.status === "unknown",
  };
}

/** Supervisors only, `unknown` sales only; false when the sale is not (or no longer) unknown. */
export async function resolveSaleAsSupervisor(
  agent: SessionAgent,
  submissionId: string,
  resolution: Resolution,
): Promise<boolean> {
  if (agent.role !== "supervisor" || !isUuid(submissionId)) return false;
  const resolved = await resolveUnknownSale(await getDb(), {
    submissionId,
    supervisorId: agent.id,
    resolution,
  });
  if (resolved) log.info("sales.resolved", { submissionId, resolution, agentId: agent.id });
  return Boolean(resolved);
}
