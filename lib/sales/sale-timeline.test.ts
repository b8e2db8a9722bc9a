import { describe, expect, it } from "vitest";
import { providerAnswerSummary } from "./provider-answer";
import { saleTimeline, type TimelineFacts } from "./sale-timeline";

const at = (time: string) => new Date(`2026-04-03T${time}Z`);
const facts = (overrides: Partial<TimelineFacts> = {}): TimelineFacts => ({
  status: "accepted",
  upstreamStatus: 200,
  outcomeDetail: null,
  resolution: null,
  completedAt: at("13:00:01"),
  settledAt: null,
  agentName: "Agente Demo",
  integrationName: null,
  attempts: 1,
  createdAt: at("13:00:00"),
  settlerName: null,
  ...overrides,
});

describe("a sale's timeline", () => {
  it("keeps the provider's answer and the supervisor's confirmation apart, oldest first", () => {
    const settled = facts({
      status: "accepted",
      upstreamStatus: 503,
      outcomeDetail: "server-error",
      resolution: "registered",
      settledAt: at("14:30:00"),
      settlerName: "Supervisora Demo",
      attempts: 2,
    });
    expect(saleTimeline(settled, 15_000)).toEqual([
      { kind: "sent", at: at("13:00:00"), text: "Enviada ao fornecedor por Agente Demo (2 tentativas)." },
      {
        kind: "answer",
        at: at("13:00:01"),
        text: "Sem resposta confirmada do fornecedor. O fornecedor teve um erro (503).",
      },
      {
        kind: "settlement",
        at: at("14:30:00"),
        text: "Conferida por Supervisora Demo: o fornecedor registrou a venda; a venda passou a Aceita.",
      },
    ]);
  });

  it("puts a confirmation before the answer to a sale sent again after it (not registered, then resent)", () => {
    const resent = facts({
      status: "accepted",
      resolution: "not-registered",
      settledAt: at("13:30:00"),
      completedAt: at("14:00:00"),
      settlerName: "Supervisora Demo",
    });
    expect(saleTimeline(resent, 15_000).map(({ kind, text }) => [kind, text])).toEqual([
      ["sent", "Enviada ao fornecedor por Agente Demo."],
      [
        "settlement",
        "Conferida por Supervisora Demo: o fornecedor não registrou a venda; a venda passou a Não enviada e pode ser vendida de novo.",
      ],
      ["answer", "O fornecedor aceitou a venda."],
    ]);
  });

  it("names who sent it: the agent, an integration on the agent's behalf, or an integration alone", () => {
    const sent = (sellers: Partial<TimelineFacts>) => saleTimeline(facts(sellers), 15_000)[0]!.text;
    expect(sent({ integrationName: "crm" })).toBe(
      "Enviada ao fornecedor por Agente Demo, via integração crm.",
    );
    expect(sent({ agentName: null, integrationName: "crm", attempts: 2 })).toBe(
      "Enviada ao fornecedor pela integração crm (2 tentativas).",
    );
  });

  it("ends with the wait while the provider has not answered", () => {
    const pending = facts({ status: "pending", completedAt: null, upstreamStatus: null });
    expect(saleTimeline(pending, 15_000).at(-1)).toEqual({
      kind: "answer",
      at: null,
      text: "Aguardando a resposta do fornecedor.",
    });
  });
});

describe("the provider's answer in words", () => {
  const unknown = (outcomeDetail: string | null, upstreamStatus: number | null = null) =>
    providerAnswerSummary(facts({ status: "unknown", outcomeDetail, upstreamStatus }), 15_000);

  it("says why an answer is unknown, for every reason the ledger records", () => {
    expect(unknown("timeout")).toMatch(/não respondeu em 15 s\.$/);
    expect(unknown("server-error", 503)).toMatch(/O fornecedor teve um erro \(503\)\.$/);
    expect(unknown("malformed-answer", 200)).toMatch(/formato que não conseguimos ler \(200\)\.$/);
    expect(unknown("connection-lost")).toMatch(/A conexão com o fornecedor caiu/);
    expect(unknown("interrupted")).toMatch(/o aplicativo foi reiniciado\.$/);
    expect(unknown(null)).toMatch(/O motivo não foi registrado\.$/);
    expect(providerAnswerSummary(facts({ status: "unknown", outcomeDetail: "timeout" }), 3_500)).toMatch(
      /em 3,5 s\./,
    );
  });

  it("says why nothing reached the provider, and what a refusal was about", () => {
    const failed = (code: string) =>
      providerAnswerSummary(facts({ status: "failed", outcomeDetail: code }), 1);
    expect(failed("partner_api.unreachable")).toBe(
      "Nada foi enviado: não foi possível conectar ao fornecedor.",
    );
    expect(failed("partner_api.invalid_client")).toMatch(/recusou as credenciais/);
    expect(failed("partner_api.token_unavailable")).toMatch(/autorização do fornecedor/);
    const refused = (upstreamStatus: number) =>
      providerAnswerSummary(facts({ status: "rejected", upstreamStatus }), 1);
    expect(refused(409)).toMatch(/já tem este plano/);
    expect(refused(422)).toMatch(/não reconhece o plano/);
    expect(refused(400)).toBe("O fornecedor recusou a venda.");
  });
});
