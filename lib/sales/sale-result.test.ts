import { describe, expect, it } from "vitest";
import { saleResult, type RecordedSale } from "./sale-result";

const facts = (overrides: Partial<RecordedSale>): RecordedSale => ({
  submissionId: "0b6c2f0e-5d7b-4a8e-9f3c-2a1d4e6b8c90",
  status: "accepted",
  protocol: "7KQ2MX9R4B",
  upstreamStatus: 200,
  upstreamMessage: "Venda de parceiro registrada.",
  outcomeDetail: null,
  rejectedFields: null,
  ...overrides,
});

const resultOf = (sale: RecordedSale) => saleResult(sale, false);

describe("what the agent reads for each outcome", () => {
  it("carries the submission, the protocol as people read it and the provider's words apart from ours", () => {
    expect(saleResult(facts({}), true)).toMatchObject({
      submissionId: "0b6c2f0e-5d7b-4a8e-9f3c-2a1d4e6b8c90",
      protocol: "7KQ2M-X9R4B",
      status: "accepted",
      replay: true,
      upstreamMessage: "Venda de parceiro registrada.",
    });
  });

  it("says pending, as the ledger does, while another request waits for the provider", () => {
    const view = resultOf(facts({ status: "pending", upstreamStatus: null, upstreamMessage: null }));
    expect(view).toMatchObject({ status: "pending", title: "Venda em envio", canRetry: false });
    expect(view.detail).toMatch(/não envie de novo/);
  });

  it("uses the one status vocabulary in its titles", () => {
    expect(resultOf(facts({})).title).toBe("Venda aceita");
    expect(resultOf(facts({ status: "rejected", upstreamStatus: 400 })).title).toBe("Venda recusada");
    expect(resultOf(facts({ status: "failed", outcomeDetail: "partner_api.unreachable" })).title).toBe(
      "Venda não enviada",
    );
    expect(resultOf(facts({ status: "unknown", outcomeDetail: "timeout" })).title).toBe("Venda a confirmar");
  });

  it("points a 409 at the plan, with what to do", () => {
    const view = resultOf(facts({ status: "rejected", upstreamStatus: 409, rejectedFields: [] }));
    expect(view.fieldErrors).toEqual({
      planId: "O cliente já tem este plano: ofereça outro ou confira o CPF.",
    });
    expect(view.detail).toMatch(/^O cliente já tem este plano\. Ofereça outro plano ou confira o CPF\./);
  });

  it("marks the fields a refusal names, the unknown plan in its own words, never partnerSource", () => {
    const unknownPlan = resultOf(
      facts({ status: "rejected", upstreamStatus: 422, rejectedFields: ["planId"] }),
    );
    expect(unknownPlan.fieldErrors).toEqual({
      planId: "O fornecedor não reconhece este plano: escolha outro.",
    });
    const invalid = resultOf(
      facts({ status: "rejected", upstreamStatus: 400, rejectedFields: ["customerPhone", "partnerSource"] }),
    );
    expect(Object.keys(invalid.fieldErrors)).toEqual(["customerPhone"]);
    expect(invalid.detail).toMatch(/^Corrija os campos marcados/);
  });

  it("gives the agent words for the customer when the outcome is unknown, with the protocol grouped", () => {
    const view = resultOf(facts({ status: "unknown", outcomeDetail: "server-error" }));
    expect(view.customerScript).toContain("7KQ2M-X9R4B");
    expect(view.canRetry).toBe(false);
  });

  it("lets a failure be sent again unless the credentials are the problem", () => {
    expect(resultOf(facts({ status: "failed", outcomeDetail: "partner_api.unreachable" })).canRetry).toBe(
      true,
    );
    expect(resultOf(facts({ status: "failed", outcomeDetail: "partner_api.invalid_client" })).canRetry).toBe(
      false,
    );
  });

  it("does not offer to send again a failed sale that is history (erased, or erasure asked)", () => {
    const failed = { status: "failed", outcomeDetail: "partner_api.unreachable" } as const;
    for (const history of [
      { personalDataErasedAt: new Date("2026-11-01T00:00:00Z") },
      { erasureRequestedAt: new Date("2026-11-01T00:00:00Z") },
    ]) {
      const view = resultOf(facts({ ...failed, ...history }));
      expect(view.canRetry).toBe(false);
      expect(view.detail).toMatch(/comece uma nova venda/);
    }
  });
});
