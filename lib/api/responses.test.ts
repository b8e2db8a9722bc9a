import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { SalesPage } from "@/lib/dal/api-sales";
import { errorBody, ERRORS, type ErrorBody, type ErrorCode } from "@/lib/errors";
import { saleResult, type RecordedSale, type SaleResult } from "@/lib/sales/sale-result";
import {
  apiPlanCatalogueSchema,
  type apiSaleListSchema,
  errorBodySchema,
  planCatalogue,
  saleResultSchema,
} from "./responses";

// The schemas the OpenAPI document is generated from, held to the types the routes answer with: a field added to
// one and not the other fails the type check.
expectTypeOf<z.infer<typeof saleResultSchema>>().toEqualTypeOf<SaleResult>();
expectTypeOf<z.infer<typeof errorBodySchema>>().toEqualTypeOf<ErrorBody>();
expectTypeOf<z.infer<typeof apiSaleListSchema>>().toEqualTypeOf<
  Omit<Extract<SalesPage, { ok: true }>, "ok">
>();

const recorded: RecordedSale = {
  submissionId: "5f0c3f0e-9b7a-4d3e-8a55-1c2b3d4e5f60",
  protocol: "7KQ2MX9R4B",
  status: "accepted",
  upstreamStatus: 200,
  upstreamMessage: null,
  outcomeDetail: null,
  rejectedFields: null,
};

describe("the answers' schemas", () => {
  it.each<Partial<RecordedSale>>([
    {},
    { status: "rejected", upstreamStatus: 422, rejectedFields: ["planId", "partnerSource"] },
    { status: "failed", upstreamStatus: null, outcomeDetail: "partner_api.invalid_client" },
    { status: "unknown", upstreamStatus: null, outcomeDetail: "timeout" },
    { status: "pending", upstreamStatus: null },
  ])("describe every sale result exactly (%o)", (sale) => {
    const result = saleResult({ ...recorded, ...sale }, false);
    expect(saleResultSchema.strict().parse(result)).toEqual(result);
  });

  it("describe every error body", () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      expect(errorBodySchema.strict().parse(errorBody(code))).toEqual(errorBody(code));
    }
    const invalid = errorBody("invalid_fields", { customerDocument: "Informe o CPF." });
    expect(errorBodySchema.strict().parse(invalid)).toEqual(invalid);
  });

  it("describe the plan catalogue, with and without one", () => {
    const plans = [{ id: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14", name: "Plano Essencial", description: "" }];
    expect(apiPlanCatalogueSchema.parse(planCatalogue(plans))).toEqual({
      catalogue: "configured",
      plans: [{ ...plans[0], price: null }],
    });
    expect(planCatalogue(null)).toEqual({ catalogue: "none", plans: [] });
  });
});
