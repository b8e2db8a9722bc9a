import { describe, expect, it } from "vitest";
import { historyQuery, parseHistoryView, SEARCH_TOO_BROAD_MESSAGE } from "./history-filter";
import { saleSearch } from "./history-search";
import { newProtocol } from "./protocol";

const SALE = "0b8f7f0e-2f57-4d7e-9a43-5f3b0c1d2e3f";
const AGENT = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

describe("the history's address", () => {
  it("reads every filter, the dates as people type them", () => {
    const view = parseHistoryView(
      new URLSearchParams({
        status: "unknown",
        agent: AGENT.toUpperCase(),
        from: "1/4/2026",
        to: "30/04/2026",
        q: "  maria   da silva ",
      }),
    );
    expect(view).toMatchObject({
      filter: {
        status: "unknown",
        agentId: AGENT,
        from: "2026-04-01",
        to: "2026-04-30",
        search: "maria da silva",
      },
      problems: {},
    });
    expect(view.cursor).toBeUndefined();
  });

  it("writes a view back as the same address, so the address restores the view", () => {
    const address =
      "?status=failed&agent=" + AGENT + "&from=01%2F04%2F2026&to=30%2F04%2F2026&q=maria&after=" + SALE;
    const view = parseHistoryView(new URLSearchParams(address));
    expect(view.cursor).toEqual({ direction: "older", submissionId: SALE });
    expect(historyQuery(view)).toBe(address);
    expect(historyQuery({ filter: {} })).toBe("");
  });

  it("takes empty fields (a submitted form) as no filter", () => {
    expect(parseHistoryView({ q: "", agent: "", from: " ", to: "" })).toEqual({
      filter: {},
      cursor: undefined,
      problems: {},
      typed: { q: "", agent: "", from: " ", to: "" },
    });
  });

  it("sets aside each wrong parameter with a pt-BR message and keeps the rest", () => {
    const view = parseHistoryView({
      status: "deleted",
      agent: "ana",
      from: "31/02/2026",
      to: "2026/04/01",
      q: "ab",
      after: "' or 1=1 --",
      before: SALE,
    });
    expect(view.filter).toEqual({});
    expect(view.cursor).toEqual({ direction: "newer", submissionId: SALE });
    expect(view.problems).toEqual({
      status: "Situação desconhecida: mostrando todas as situações.",
      agent: "Agente desconhecido: mostrando todos os agentes.",
      from: "Esta data não existe.",
      to: "Use uma data no formato DD/MM/AAAA.",
      q: "Digite pelo menos 3 caracteres para buscar.",
      after: "Endereço de página inválido: mostrando as vendas mais recentes.",
    });
    expect(view.typed.from).toBe("31/02/2026");
  });

  it("refuses a search no index can serve, and takes every kind one can", () => {
    for (const q of ["a b c", "@.-_", "a.b@c", "%%%", "ab_cd"])
      expect(parseHistoryView({ q }).problems, q).toEqual({ q: SEARCH_TOO_BROAD_MESSAGE });
    for (const q of ["ana", "ana@x", "Zé Lúcio", "529.982.247-25", "(11) 98765-4321", "123", "7KQ2M-X9R4B"])
      expect(parseHistoryView({ q }).filter, q).toEqual({ search: q });
  });

  it("refuses oversized and control-character input before reading it", () => {
    const view = parseHistoryView({
      q: "a".repeat(100_000),
      from: "x".repeat(5_000),
      status: "unknown\u0000",
    });
    expect(view.filter).toEqual({});
    expect(view.problems.q).toBe("A busca aceita no máximo 254 caracteres.");
    expect(view.problems.from).toBe("Use uma data no formato DD/MM/AAAA.");
    expect(view.problems.status).toMatch(/caracteres invisíveis/);
  });

  it("keeps a range that ends before it starts only from its start", () => {
    const view = parseHistoryView({ from: "10/04/2026", to: "01/04/2026" });
    expect(view.filter).toEqual({ from: "2026-04-10" });
    expect(view.problems.to).toBe("A data final é anterior à inicial: confira o período.");
  });

  it("takes the first of repeated parameters", () => {
    expect(parseHistoryView({ status: ["accepted", "unknown"] }).filter).toEqual({ status: "accepted" });
  });
});

describe("what a search can mean", () => {
  it("a CPF or a phone, typed with or without punctuation", () => {
    expect(saleSearch("529.982.247-25")).toMatchObject({
      cpf: "52998224725",
      phone: "52998224725",
      contains: null,
    });
    expect(saleSearch("(21) 3333-4444")).toMatchObject({ cpf: null, phone: "2133334444" });
    expect(saleSearch("+55 21 98888-7777")).toMatchObject({ phone: "21988887777" });
  });

  it("part of a name or an e-mail, and always the partner's customer id as typed", () => {
    expect(saleSearch("Conceição")).toMatchObject({ text: "Conceição", contains: "conceição", cpf: null });
    expect(saleSearch("@provedor.com")).toMatchObject({ contains: "@provedor.com" });
  });

  it("a protocol, grouped or not, or a submissionId", () => {
    const protocol = newProtocol();
    expect(saleSearch(`${protocol.slice(0, 5)}-${protocol.slice(5)}`.toLowerCase()).protocol).toBe(protocol);
    expect(saleSearch(SALE.toUpperCase()).submissionId).toBe(SALE);
    expect(saleSearch("Maria").protocol).toBeNull();
  });
});
