import "server-only";
import { getDb } from "@/lib/db";
import { cache } from "react";
import { rebuildSalesStatistics } from "@/lib/db/queries/customer-data";
import { findSale, settleUnknownSale } from "@/lib/db/queries/sales";
import type { Sale, SaleResolution } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { log } from "@/lib/log";
import { formatProtocol } from "@/lib/sales/protocol";
import type { TimelineFacts } from "@/lib/sales/sale-timeline";
import { isUuid } from "@/lib/validation/sale";
import { configuredPlanName } from "./plans";
import { logRefusedAccess, type SessionAgent } from "./session";

/** The zone of every time people read: history, sale page, export (APP_TIME_ZONE). */
export const appTimeZone = (): string => getConfig().timeZone;

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
      planName: configuredPlanName(sale.request.planId),
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
    // The event keeps its first name: operators' alerts and dashboards watch it (docs/architecture.md, Glossary).
    log.info("sales.resolved", { submissionId, resolution, agentId: agent.id });
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
