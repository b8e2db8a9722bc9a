import "server-only";
import { getDb } from "@/lib/db";
import { cache } from "react";
import { rebuildSalesStatistics } from "@/lib/db/queries/customer-data";
import { findHeldSaleOf, findSale, settleUnknownSale } from "@/lib/db/queries/sales";
import type { Sale, SaleResolution } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { formatDateTime } from "@/lib/format";
import { log } from "@/lib/log";
import { provider } from "@/lib/provider";
import { formatProtocol } from "@/lib/sales/protocol";
import type { TimelineFacts } from "@/lib/sales/sale-timeline";
import { submitSale, type Submission } from "@/lib/sales/submit-sale";
import { createSaleSchema, isUuid, type ValidSale } from "@/lib/validation/sale";
import { logRefusedAccess, type SessionAgent } from "./session";

import type { SaleEvidenceToRecord } from "@/lib/db/queries/sale-evidence";

let built: { config: ReturnType<typeof getConfig>; schema: ReturnType<typeof createSaleSchema> } | undefined;

/** Built once per configuration: zod compiles a schema on its first parse, which costs more than the parse. */
export function saleSchema() {
  const config = getConfig();
  if (built?.config !== config) {
    built = { config, schema: createSaleSchema({ planIds: config.plans?.map((plan) => plan.id) ?? null }) };
  }
  return built.schema;
}

/**
 * Nothing was sent: the ledger already holds a sale of this plan for this CPF that the provider may have (accepted,
 * or still to be confirmed), so the form asks the agent to confirm before sending another.
 */
export interface KnownCustomer {
  status: "known_customer";
  /** The earlier sale: whether it was accepted or is still to be confirmed, its protocol and when it was made. */
  earlier: "accepted" | "unconfirmed";
  protocol: string;
  soldAt: string;
}

export async function knownCustomerSale(
  agent: SessionAgent,
  submissionId: string,
  sale: ValidSale,
): Promise<KnownCustomer | null> {
  const earlier = await findHeldSaleOf(await getDb(), {
    customerDocument: sale.customerDocument,
    planId: sale.planId,
    exceptSubmissionId: submissionId,
    ...(getConfig().limits.knownCustomerScope === "own" ? { agentId: agent.id } : {}),
  });
  return earlier
    ? {
        status: "known_customer",
        earlier: earlier.status === "accepted" ? "accepted" : "unconfirmed",
        protocol: formatProtocol(earlier.protocol),
        soldAt: formatDateTime(earlier.createdAt, appTimeZone(), "minutes"),
      }
    : null;
}

/**
 * A seller's submission: ledger, upstream, outcome. Callers have verified the door (session or API key) and the
 * input; the sale is the agent's, the integration's, or both (a key selling on an agent's behalf).
 */
export async function submitSaleAs(
  seller: { agentId: string | null; integrationId: string | null },
  submissionId: string,
  sale: ValidSale,
  evidence?: SaleEvidenceToRecord,
): Promise<Submission> {
  return submitSale(
    { db: await getDb(), provider: provider(), partnerSource: getConfig().provider.partnerSource },
    { ...seller, submissionId, sale, evidence },
  );
}

/** The zone of every time people read: history, sale page, export (APP_TIME_ZONE). */
export const appTimeZone = (): string => getConfig().timeZone;

/** A plan's name in the catalogue, or its id when the catalogue does not know it (any more). */
export function planName(planId: string): string {
  return getConfig().plans?.find((plan) => plan.id.toLowerCase() === planId.toLowerCase())?.name ?? planId;
}

export interface SaleDetail extends TimelineFacts {
  submissionId: string;
  /** As people read it, "7KQ2M-X9R4B". */
  protocol: string;
  request: Sale["request"];
  /** Why the customer's personal data was erased (the request then holds none of it), or null. */
  erasure: Sale["personalDataErasure"];
  planName: string;
  upstreamMessage: string | null;
  rejectedFields: Sale["rejectedFields"];
  /** The provider's time limit per call: what "no answer in time" meant. */
  upstreamTimeoutMs: number;
  /** Whether the viewer may settle this sale (a supervisor, on an `unknown` sale). */
  canSettle: boolean;
}

/**
 * One sale, if the agent may see it: a supervisor any, an agent those sold as them (in a session, or by an
 * integration on their behalf), never an integration's own. Cached per request: the page and its title both ask.
 */
export const getVisibleSale = cache(
  async (agent: SessionAgent, submissionId: string): Promise<SaleDetail | null> => {
    if (!isUuid(submissionId)) return null;
    const sale = await findSale(await getDb(), submissionId);
    if (!sale) return null;
    if (agent.role !== "supervisor" && sale.agentId !== agent.id) {
      await logRefusedAccess(agent, "other_agents_sale", { submissionId });
      return null;
    }
    return {
      submissionId: sale.submissionId,
      protocol: formatProtocol(sale.protocol),
      status: sale.status,
      request: sale.request,
      erasure: sale.personalDataErasure,
      planName: planName(sale.request.planId),
      agentName: sale.agentName,
      integrationName: sale.integrationName,
      attempts: sale.attempts,
      upstreamStatus: sale.upstreamStatus,
      upstreamMessage: sale.upstreamMessage,
      outcomeDetail: sale.outcomeDetail,
      rejectedFields: sale.rejectedFields,
      createdAt: sale.createdAt,
      completedAt: sale.completedAt,
      resolution: sale.resolution,
      settlerName: sale.settlerName,
      settledAt: sale.settledAt,
      upstreamTimeoutMs: getConfig().provider.timeoutMs,
      canSettle: agent.role === "supervisor" && sale.status === "unknown",
    };
  },
);

/** "settled" now; "already-settled" when someone (or a late answer) got there first; "not-allowed" otherwise. */
export type SettleResult = "settled" | "already-settled" | "not-allowed";

/** Supervisors only, `unknown` sales only. */
export async function settleSaleAsSupervisor(
  agent: SessionAgent,
  submissionId: string,
  resolution: SaleResolution,
): Promise<SettleResult> {
  if (!isUuid(submissionId)) return "not-allowed";
  if (agent.role !== "supervisor") {
    await logRefusedAccess(agent, "supervisor_action", { action: "settle", submissionId });
    return "not-allowed";
  }
  const db = await getDb();
  const settled = await settleUnknownSale(db, { submissionId, supervisor: agent, resolution });
  if (settled) {
    log.info("sales.settled", { submissionId, resolution, agentId: agent.id });
    // Its customer had asked for erasure: it was erased as it was settled, and the statistics follow. Settled it
    // stays if they fail (logged: the next erasure, or autovacuum's or the upkeep's ANALYZE, rebuilds them).
    if (settled.erasureRequestedAt) {
      await rebuildSalesStatistics(db).catch((error: unknown) =>
        log.error("customers.statistics_failed", { submissionId, error }),
      );
    }
    return "settled";
  }
  return (await findSale(db, submissionId)) ? "already-settled" : "not-allowed";
}
