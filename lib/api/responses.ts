import { z } from "zod";
import type { Plan } from "@/lib/config/plans";
import { saleStatus } from "@/lib/db/schema";
import { ERRORS, type ErrorCode } from "@/lib/errors";
import { SALE_FIELDS } from "@/lib/validation/sale";
import { apiSaleSchema } from "./sale-representation";

/**
 * What /api/v1 answers besides a sale (./sale-representation.ts), as zod schemas: the OpenAPI document
 * (./openapi.ts) is generated from them, and ./responses.test.ts holds each to the type the code answers with.
 */

const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

/** lib/errors' one error body. */
export const errorBodySchema = z
  .object({
    error: z.enum(ERROR_CODES).meta({ description: "A stable code, for programs." }),
    message: z.string().meta({ description: "What a person reads (pt-BR)." }),
    fieldErrors: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: "Field or query parameter → what is wrong with it (pt-BR)." }),
  })
  .meta({ description: "Every refusal of the API: a code for programs and a message for people." });

/** lib/sales/sale-result.ts's SaleResult: what `POST /api/v1/sales` answers once the ledger holds the sale. */
export const saleResultSchema = z
  .object({
    submissionId: z.string().meta({ description: "The Idempotency-Key the sale was sent with." }),
    protocol: z.string().meta({ description: "The protocol as people read it.", examples: ["7KQ2M-X9R4B"] }),
    status: z.enum(saleStatus.enumValues).meta({
      description:
        "The ledger's status; `pending` while another request with this key waits for the provider.",
    }),
    title: z.string().meta({ description: "The status in words (pt-BR): “Venda aceita”, “Venda recusada”…" }),
    detail: z.string().meta({ description: "What happened and what to do next, in pt-BR." }),
    customerScript: z
      .string()
      .nullable()
      .meta({ description: "Words for the customer on the line, where the outcome leaves them waiting." }),
    canRetry: z
      .boolean()
      .meta({ description: "Whether sending again with the same Idempotency-Key may still succeed." }),
    fieldErrors: z.partialRecord(z.enum(SALE_FIELDS), z.string()).meta({
      description: "The fields the provider's refusal points at, with what to do about each (pt-BR).",
    }),
    replay: z
      .boolean()
      .meta({ description: "The ledger held this key before this request: the outcome is the first one's." }),
    upstreamMessage: z.string().nullable().meta({ description: "The provider's own words, if any." }),
  })
  .meta({ description: "A sale's outcome as the ledger recorded it." });

/** `GET /api/v1/sales` in both modes, search and changes feed. */
export const apiSaleListSchema = z
  .object({
    sales: z.array(apiSaleSchema),
    nextCursor: z
      .string()
      .nullable()
      .meta({
        description:
          "Search: the next page's `cursor`, null when there is no more. Changes feed: always a cursor (the same one " +
          "when nothing changed): the next poll's `updatedAfter`.",
      }),
  })
  .meta({ description: "A page of sales." });

/** `GET /api/v1/plans`. */
export const apiPlanCatalogueSchema = z
  .object({
    catalogue: z.enum(["configured", "none"]).meta({
      description:
        "`none`: this deployment has no catalogue, only the provider knows its plans (the list is empty).",
    }),
    plans: z.array(
      z.object({
        id: z.string().meta({
          description: "What a sale's `planId` names.",
          examples: ["3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14"],
        }),
        name: z.string().meta({ examples: ["Plano Essencial"] }),
        description: z.string(),
        price: z
          .number()
          .nullable()
          .meta({ description: "What the customer pays, in reais, when the catalogue says." }),
      }),
    ),
  })
  .meta({ description: "The plans a sale may name." });
export type ApiPlanCatalogue = z.infer<typeof apiPlanCatalogueSchema>;

/** The catalogue as `GET /api/v1/plans` shows it (`plans` from the configuration). */
export function planCatalogue(plans: readonly Plan[] | null): ApiPlanCatalogue {
  return {
    catalogue: plans ? "configured" : "none",
    plans: (plans ?? []).map((plan) => ({
      id: plan.id,
      name: plan.name,
      description: plan.description,
      price: plan.price ?? null,
    })),
  };
}
