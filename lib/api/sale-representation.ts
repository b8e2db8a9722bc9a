import type { Sale } from "@/lib/db/schema";
import { formatProtocol } from "@/lib/sales/protocol";

/** Who sold a sale, as /api/v1 shows it: the agent and/or the integration whose key made it. */
export interface ApiSeller {
  agent: { id: string; name: string } | null;
  integration: string | null;
}

/** Who settled an `unknown` sale, what they learnt and when (null while unsettled, or never unknown). */
export interface ApiSettlement {
  by: { id: string; name: string };
  at: string;
  resolution: NonNullable<Sale["resolution"]>;
}

/** The customer's data as it was sent to the provider: only for a key with `sales:read-customer`. */
export interface ApiCustomer {
  document: string;
  name: string;
  email: string;
  phone: string;
  birthDate: string | null;
}

/** A sale as /api/v1 answers it (README: "Integrating with the API"). */
export interface ApiSale {
  submissionId: string;
  /** As people read it: "7KQ2M-X9R4B". */
  protocol: string;
  status: Sale["status"];
  planId: string;
  /** The partner's own id for the sale, when it sent one. */
  externalId: string | null;
  seller: ApiSeller;
  /** What the provider answered: its HTTP status and message, the fields it refused, or why no answer counts. */
  provider: {
    httpStatus: number | null;
    message: string | null;
    rejectedFields: string[];
    detail: string | null;
  };
  settlement: ApiSettlement | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** When the customer's personal data was erased (retention or their request); the sale itself stays. */
  personalDataErasedAt: string | null;
  /** Present only with `sales:read-customer`, and null once erased. */
  customer?: ApiCustomer | null;
}

export type SaleRow = Pick<
  Sale,
  | "submissionId"
  | "protocol"
  | "status"
  | "request"
  | "upstreamStatus"
  | "upstreamMessage"
  | "rejectedFields"
  | "outcomeDetail"
  | "resolution"
  | "resolvedAt"
  | "createdAt"
  | "updatedAt"
  | "completedAt"
  | "personalDataErasedAt"
>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * A ledger row for a program. Customer fields appear only when `withCustomer` (the key's `sales:read-customer`):
 * least data by default (LGPD art. 6, III). A settlement names its supervisor by id and name, never by e-mail.
 */
export function apiSale(
  row: SaleRow,
  context: { seller: ApiSeller; settledBy: { id: string; name: string } | null; withCustomer: boolean },
): ApiSale {
  const { request } = row;
  const sale: ApiSale = {
    submissionId: row.submissionId,
    protocol: formatProtocol(row.protocol),
    status: row.status,
    planId: request.planId,
    externalId: request.externalId || null,
    seller: context.seller,
    provider: {
      httpStatus: row.upstreamStatus,
      message: row.upstreamMessage,
      rejectedFields: row.rejectedFields ?? [],
      detail: row.outcomeDetail,
    },
    settlement:
      row.resolution && row.resolvedAt && context.settledBy
        ? { by: context.settledBy, at: row.resolvedAt.toISOString(), resolution: row.resolution }
        : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    completedAt: iso(row.completedAt),
    personalDataErasedAt: iso(row.personalDataErasedAt),
  };
  if (!context.withCustomer) return sale;
  return {
    ...sale,
    customer: row.personalDataErasedAt
      ? null
      : {
          document: request.customerDocument,
          name: request.customerName,
          email: request.customerEmail,
          phone: request.customerPhone,
          birthDate: request.birthDate || null,
        },
  };
}
