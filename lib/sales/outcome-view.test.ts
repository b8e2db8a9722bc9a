import { describe, expect, it } from "vitest";
import { outcomeView, type OutcomeFacts } from "./outcome-view";

const facts = (overrides: Partial<OutcomeFacts>): OutcomeFacts => ({
  status: "accepted",
  protocol: "7KQ2MX9R4B",
  upstreamStatus: 200,
  outcomeDetail: null,
  rejectedFields: null,
  ...overrides,
});

describe("what the agent reads for each outcome", () => {
  it("uses the one status vocabulary in its titles", () => {
    expect(outcomeView(facts({})).title).toBe("Venda aceita");
    expect(outcomeView(facts({ status: "rejected", upstreamStatus: 400 })).title).toBe("Venda recusada");
    expect(outcomeView(facts({ status: "failed", outcomeDetail: "partner_api.unreachable" })).title).toBe(
      "Venda não enviada",
    );
    expect(outcomeView(facts({ status: "unknown", outcomeDetail: "timeout" })).title).toBe(
      "Venda a confirmar",
    );
  });

  it("points a 409 at the plan, with what to do", () => {
    const view = outcomeView(facts({ status: "rejected", upstreamStatus: 409, rejectedFields: [] }));
    expect(view.fieldErrors).toEqual({
      planId: "O cliente já tem este plano: ofereça outro ou confira o CPF.",
    });
    expect(view.detail).toMatch(/^O cliente já tem este plano\. Ofereça outro plano ou confira o CPF\./);
  });

  it("marks the fields a refusal names, the unknown plan in its own words, never partnerSource", () => {
    const unknownPlan = outcomeView(
      facts({ status: "rejected", upstreamStatus: 422, rejectedFields: ["planId"] }),
    );
    expect(unknownPlan.fieldErrors).toEqual({
      planId: "O fornecedor não reconhece este plano: escolha outro.",
    });
    const invalid = outcomeView(
      facts({ status: "rejected", upstreamStatus: 400, rejectedFields: ["customerPhone", "partnerSource"] }),
    );
    expect(Object.keys(invalid.fieldErrors)).toEqual(["customerPhone"]);
    expect(invalid.detail).toMatch(/^Corrija os campos marcados/);
  });

  it("gives the agent words for the customer when the outcome is unknown, with the protocol grouped", () => {
    const view = outcomeView(facts({ status: "unknown", outcomeDetail: "server-error" }));
    expect(view.customerScript).toContain("7KQ2M-X9R4B");
    expect(view.canRetry).toBe(false);
  });

  it("lets a failure be sent again unless the credentials are the problem", () => {
    expect(outcomeView(facts({ status: "failed", outcomeDetail: "partner_api.unreachable" })).canRetry).toBe(
      true,
    );
    expect(
      outcomeView(facts({ status: "failed", outcomeDetail: "partner_api.invalid_client" })).canRetry,
    ).toBe(false);
  });
});
