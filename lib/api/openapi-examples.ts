import { saleResult, type RecordedSale } from "@/lib/sales/sale-result";
import { createSaleSchema, fieldErrorsOf } from "@/lib/validation/sale";
import { feedCursor } from "./cursors";
import { listSalesQuerySchema } from "./requests";
import { apiSale } from "./sale-representation";

// The OpenAPI document's examples, made by the code that makes the answers: their words are the real ones.

export const EXAMPLE_SALE_ID = "5f0c3f0e-9b7a-4d3e-8a55-1c2b3d4e5f60";
export const EXAMPLE_FEED_CURSOR = feedCursor({ micros: "1795953601200000", submissionId: EXAMPLE_SALE_ID });

function recorded(sale: Partial<RecordedSale>, replay = false) {
  return saleResult(
    {
      submissionId: EXAMPLE_SALE_ID,
      protocol: "7KQ2MX9R4B",
      status: "accepted",
      upstreamStatus: 200,
      upstreamMessage: null,
      outcomeDetail: null,
      rejectedFields: null,
      ...sale,
    },
    replay,
  );
}

export const SALE_RESULTS = {
  accepted: { summary: "Accepted", value: recorded({}) },
  replay: { summary: "The same Idempotency-Key again", value: recorded({}, true) },
  rejected: {
    summary: "Rejected: the customer already has this plan",
    value: recorded({
      status: "rejected",
      upstreamStatus: 409,
      upstreamMessage: "O cliente já possui este plano.",
    }),
  },
  failed: {
    summary: "Failed: nothing reached the provider",
    value: recorded({ status: "failed", upstreamStatus: null, outcomeDetail: "partner_api.unreachable" }),
  },
  unknown: {
    summary: "Unknown: the provider answered 500",
    value: recorded({ status: "unknown", upstreamStatus: 500, outcomeDetail: "server-error" }),
  },
  timeout: {
    summary: "Unknown: no answer in time",
    value: recorded({ status: "unknown", upstreamStatus: null, outcomeDetail: "timeout" }),
  },
  pending: {
    summary: "Another request with this key waits for the provider",
    value: recorded({ status: "pending", upstreamStatus: null }),
  },
};

export const EXAMPLE_SALE = apiSale(
  {
    submissionId: EXAMPLE_SALE_ID,
    protocol: "7KQ2MX9R4B",
    status: "accepted",
    request: {
      customerDocument: "52998224725",
      customerName: "Maria Souza",
      customerEmail: "maria.souza@example.com",
      customerPhone: "11987654321",
      planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
      externalId: "CRM-991",
    },
    upstreamStatus: 200,
    upstreamMessage: null,
    rejectedFields: null,
    outcomeDetail: null,
    resolution: null,
    settledAt: null,
    createdAt: new Date("2026-11-29T12:00:00.000Z"),
    updatedAt: new Date("2026-11-29T12:00:01.200Z"),
    completedAt: new Date("2026-11-29T12:00:01.200Z"),
    personalDataErasedAt: null,
    evidence: null,
  },
  { seller: { agent: null, integration: "crm" }, settledBy: null, withCustomer: false },
);

/** The pt-BR words an example refusal carries: the schemas' own, from a value they refuse. */
export function exampleFieldErrors(): Record<string, Record<string, string>> {
  const sale = createSaleSchema({ planIds: null }).safeParse({
    customerDocument: "529.982.247-20",
    customerName: "Maria Souza",
    customerEmail: "maria.souza@example.com",
    customerPhone: "(11) 98765-4321",
    planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
    birthDate: "",
    externalId: "",
  });
  const query = listSalesQuerySchema.safeParse({ limit: "500" });
  return {
    invalid_fields: sale.success ? {} : fieldErrorsOf(sale.error),
    invalid_query: query.success ? {} : { limit: query.error.issues[0]!.message },
  };
}
