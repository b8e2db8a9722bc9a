import { z } from "zod";
import { saleResolution, saleStatus, type EvidenceConfirmation, type Sale } from "@/lib/db/schema";
import { formatProtocol } from "@/lib/sales/protocol";

// The schemas are the representation's definition: the types below are inferred from them, and the OpenAPI
// document (lib/api/openapi.ts) is generated from them, so code and document cannot drift apart.

const timestamp = z.iso.datetime();

/** Someone the ledger names: by id and name, never by e-mail. */
export const apiPersonSchema = z.object({
  id: z.string().meta({ examples: ["9b1f6c2e-4a3d-4f7e-8c21-0d5e6f7a8b90"] }),
  name: z.string().meta({ examples: ["Ana Lima"] }),
});

export const apiSellerSchema = z
  .object({
    agent: apiPersonSchema.nullable().meta({ description: "The agent the sale was made by or for." }),
    integration: z
      .string()
      .nullable()
      .meta({ description: "The integration whose API key made the sale.", examples: ["crm"] }),
  })
  .meta({ description: "Who sold a sale: the agent and/or the integration whose key made it." });
export type ApiSeller = z.infer<typeof apiSellerSchema>;

export const apiSettlementSchema = z
  .object({
    by: apiPersonSchema.meta({ description: "The supervisor who settled it." }),
    at: timestamp,
    resolution: z.enum(saleResolution.enumValues).meta({
      description: "What the supervisor learnt from the provider: whether it registered the sale.",
    }),
  })
  .meta({ description: "Who settled an `unknown` sale, what they learnt and when." });
export type ApiSettlement = z.infer<typeof apiSettlementSchema>;

export const apiCustomerSchema = z
  .object({
    document: z.string().meta({ description: "CPF, 11 digits.", examples: ["52998224725"] }),
    name: z.string().meta({ examples: ["Maria Souza"] }),
    email: z.string().meta({ examples: ["cliente@example.com"] }),
    phone: z.string().meta({ description: "DDD and number, digits only.", examples: ["11987654321"] }),
    birthDate: z.iso.date().nullable(),
  })
  .meta({
    description:
      "The customer's data as it was sent to the provider: only for a key with `sales:read-customer`.",
  });
export type ApiCustomer = z.infer<typeof apiCustomerSchema>;

export const apiEvidenceSchema = z
  .object({
    scriptVersion: z
      .string()
      .meta({ description: "The plan's offer script, as PLANS_FILE names it.", examples: ["2026-11"] }),
    scriptHash: z.string().meta({
      description:
        'SHA-256 (hex) of the script as the agent saw it (docs/selling.md: "The evidence of a sale").',
      examples: ["9f2c4e0a7b1d3c5e8f6a2b4d0c1e3f5a7b9d2c4e6f8a0b1c3d5e7f9a1b2c3d4e"],
    }),
    confirmations: z
      .array(z.object({ id: z.string().meta({ examples: ["valor"] }), confirmedAt: timestamp }))
      .meta({
        description: "What the customer confirmed, in the script's order, and when the agent ticked it.",
      }),
    recordingId: z
      .string()
      .nullable()
      .optional()
      .meta({
        description:
          "The call's recording in the partner's telephony: only with `sales:read-customer`; null when none was given or once erased.",
        examples: ["rec-2026-11-29-0042"],
      }),
  })
  .meta({ description: "What was offered and accepted, for a plan with an offer script." });
export type ApiEvidence = z.infer<typeof apiEvidenceSchema>;

export const apiSaleSchema = z
  .object({
    submissionId: z.string().meta({
      description: "The sale's id: the Idempotency-Key it was sold with.",
      examples: ["5f0c3f0e-9b7a-4d3e-8a55-1c2b3d4e5f60"],
    }),
    protocol: z.string().meta({ description: "The protocol as people read it.", examples: ["7KQ2M-X9R4B"] }),
    status: z.enum(saleStatus.enumValues),
    planId: z.string().meta({ examples: ["3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14"] }),
    externalId: z
      .string()
      .nullable()
      .meta({ description: "The partner's own id for the sale, when it sent one.", examples: ["CRM-991"] }),
    seller: apiSellerSchema,
    provider: z
      .object({
        httpStatus: z.int().min(100).max(599).nullable(),
        message: z.string().nullable(),
        rejectedFields: z.array(z.string()),
        detail: z
          .string()
          .nullable()
          .meta({ description: "Why no answer counts (e.g. `timeout`), or null." }),
      })
      .meta({
        description:
          "What the provider answered: its HTTP status and message, the fields it refused, or why no answer counts.",
      }),
    settlement: apiSettlementSchema
      .nullable()
      .meta({ description: "Null while unsettled, or when the sale was never `unknown`." }),
    createdAt: timestamp,
    updatedAt: timestamp,
    completedAt: timestamp.nullable(),
    personalDataErasedAt: timestamp.nullable().meta({
      description:
        "When the customer's personal data was erased (retention or their request); the sale itself stays.",
    }),
    customer: apiCustomerSchema
      .nullable()
      .optional()
      .meta({ description: "Present only with `sales:read-customer`, and null once erased." }),
    evidence: apiEvidenceSchema
      .nullable()
      .meta({ description: "The offer's evidence of a scripted sale; null for any other." }),
  })
  .meta({ description: "A sale as /api/v1 answers it." });
export type ApiSale = z.infer<typeof apiSaleSchema>;

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
  | "settledAt"
  | "createdAt"
  | "updatedAt"
  | "completedAt"
  | "personalDataErasedAt"
> & {
  /** A scripted sale's evidence (lib/db/queries/api-sales.ts joins it), or null. */
  evidence: {
    scriptVersion: string;
    scriptHash: string;
    confirmations: EvidenceConfirmation[];
    recordingId: string | null;
  } | null;
};

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * A ledger row for a program. Customer fields appear only when `withCustomer` (the key's `sales:read-customer`):
 * least data by default (LGPD art. 6, III). A settlement names its supervisor by id and name, never by e-mail.
 */
export function apiSale(
  row: SaleRow,
  context: { seller: ApiSeller; settledBy: ApiSettlement["by"] | null; withCustomer: boolean },
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
      row.resolution && row.settledAt && context.settledBy
        ? { by: context.settledBy, at: row.settledAt.toISOString(), resolution: row.resolution }
        : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    completedAt: iso(row.completedAt),
    personalDataErasedAt: iso(row.personalDataErasedAt),
    evidence: row.evidence && {
      scriptVersion: row.evidence.scriptVersion,
      scriptHash: row.evidence.scriptHash,
      confirmations: row.evidence.confirmations.map(({ id, confirmedAt }) => ({ id, confirmedAt })),
      ...(context.withCustomer ? { recordingId: row.evidence.recordingId } : {}),
    },
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
