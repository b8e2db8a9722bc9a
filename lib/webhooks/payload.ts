import "server-only";
import { apiSale, type ApiSale } from "@/lib/api/sale-representation";
import type { ApiSaleRow } from "@/lib/db/queries/api-sales";
import type { WebhookEventType } from "@/lib/db/schema";

/** What a receiver gets (Standard Webhooks' shape): the event's type, when it happened, and its data. */
export interface WebhookPayload {
  type: WebhookEventType;
  timestamp: string;
  data: ApiSale | { sales: ErasedSale[] };
}

export interface ErasedSale {
  submissionId: string;
  protocol: string;
  externalId: string | null;
}

const at = (value: unknown) => (typeof value === "string" ? new Date(value) : null);

/**
 * A sale's event: the sale as /api/v1 shows it (lib/api/sale-representation.ts), with what the event says as of
 * its moment (the trigger's snapshot: status, the provider's answer, the settlement), so a `sale.unknown` sent
 * after its settlement still says unknown. Customer data, and the provider's words that may repeat it, only to an
 * endpoint configured for them, and never once erased (read now, not as of then).
 */
export function saleEventPayload(
  event: { type: WebhookEventType; createdAt: Date; snapshot: Record<string, unknown> },
  row: ApiSaleRow,
  withCustomer: boolean,
): WebhookPayload {
  const snapshot = event.snapshot;
  const settled = event.type === "sale.settled";
  const asOfThen = {
    ...row,
    status: (snapshot.status as ApiSaleRow["status"]) ?? row.status,
    upstreamStatus: settled ? row.upstreamStatus : ((snapshot.upstreamStatus as number | null) ?? null),
    upstreamMessage: withCustomer
      ? settled
        ? row.upstreamMessage
        : ((snapshot.upstreamMessage as string | null) ?? null)
      : null,
    outcomeDetail: settled ? row.outcomeDetail : ((snapshot.outcomeDetail as string | null) ?? null),
    rejectedFields: settled
      ? row.rejectedFields
      : ((snapshot.rejectedFields as ApiSaleRow["rejectedFields"]) ?? null),
    completedAt: settled ? row.completedAt : at(snapshot.completedAt),
    updatedAt: at(snapshot.updatedAt) ?? row.updatedAt,
    resolution: settled ? ((snapshot.resolution as ApiSaleRow["resolution"]) ?? null) : null,
    settledAt: settled ? at(snapshot.resolvedAt) : null,
  };
  return {
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    data: apiSale(asOfThen, {
      seller: {
        agent: row.agentId && row.agentName ? { id: row.agentId, name: row.agentName } : null,
        integration: row.integrationName,
      },
      settledBy:
        settled && row.settlerId && row.settlerName ? { id: row.settlerId, name: row.settlerName } : null,
      withCustomer,
    }),
  };
}

/** A customer's erasure: which sales (ids, protocols, the partner's ids), so the CRM can erase too; no personal data. */
export function erasurePayload(event: {
  createdAt: Date;
  snapshot: Record<string, unknown>;
}): WebhookPayload {
  return {
    type: "customer.erased",
    timestamp: event.createdAt.toISOString(),
    data: { sales: (event.snapshot.sales as ErasedSale[] | undefined) ?? [] },
  };
}
