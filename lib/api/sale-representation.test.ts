import { describe, expect, it } from "vitest";
import { apiSale, apiSaleSchema, type SaleRow } from "./sale-representation";

const at = new Date("2026-11-29T12:00:00Z");
const row: SaleRow = {
  submissionId: "5f0c3f0e-9b7a-4d3e-8a55-1c2b3d4e5f60",
  protocol: "7KQ2MX9R4B",
  status: "unknown",
  request: {
    customerDocument: "52998224725",
    customerEmail: "cliente@example.com",
    customerPhone: "11987654321",
    customerName: "Maria Souza",
    planId: "b7e2c1a0-1111-4222-8333-444455556666",
    externalId: "CRM-991",
    birthDate: "1990-05-17",
  },
  upstreamStatus: null,
  upstreamMessage: null,
  rejectedFields: null,
  outcomeDetail: "timeout",
  resolution: "registered",
  settledAt: at,
  createdAt: at,
  updatedAt: at,
  completedAt: at,
  personalDataErasedAt: null,
  evidence: null,
};
const evidence = {
  scriptVersion: "2026-11",
  scriptHash: "9f".repeat(32),
  confirmations: [{ id: "valor", text: "Cliente aceitou", required: true, confirmedAt: at.toISOString() }],
  recordingId: "rec-42",
};
const seller = { agent: { id: "a1", name: "Ana Lima" }, integration: "crm" };
const supervisor = { id: "s1", name: "Bruno Costa" };

describe("apiSale", () => {
  it("shows the sale, the seller and the settlement, and no customer data without its scope", () => {
    const sale = apiSale(row, { seller, settledBy: supervisor, withCustomer: false });
    expect(sale).toEqual({
      submissionId: row.submissionId,
      protocol: "7KQ2M-X9R4B",
      status: "unknown",
      planId: row.request.planId,
      externalId: "CRM-991",
      seller,
      provider: { httpStatus: null, message: null, rejectedFields: [], detail: "timeout" },
      settlement: { by: supervisor, at: at.toISOString(), resolution: "registered" },
      createdAt: at.toISOString(),
      updatedAt: at.toISOString(),
      completedAt: at.toISOString(),
      personalDataErasedAt: null,
      evidence: null,
    });
    expect(JSON.stringify(sale)).not.toMatch(/52998224725|Maria|cliente@|11987654321|1990-05-17/);
  });

  it("adds the customer with sales:read-customer, and says null once erased", () => {
    expect(apiSale(row, { seller, settledBy: supervisor, withCustomer: true }).customer).toEqual({
      document: "52998224725",
      name: "Maria Souza",
      email: "cliente@example.com",
      phone: "11987654321",
      birthDate: "1990-05-17",
    });
    const erased = { ...row, personalDataErasedAt: at };
    expect(apiSale(erased, { seller, settledBy: null, withCustomer: true })).toMatchObject({
      customer: null,
      personalDataErasedAt: at.toISOString(),
      settlement: null,
    });
  });

  it("carries a scripted sale's evidence, its recording id only with sales:read-customer", () => {
    const scripted = { ...row, evidence };
    const shown = {
      scriptVersion: "2026-11",
      scriptHash: evidence.scriptHash,
      confirmations: [{ id: "valor", confirmedAt: at.toISOString() }],
    };
    expect(apiSale(scripted, { seller, settledBy: null, withCustomer: false }).evidence).toEqual(shown);
    expect(apiSale(scripted, { seller, settledBy: null, withCustomer: true }).evidence).toEqual({
      ...shown,
      recordingId: "rec-42",
    });
    const withSchema = apiSaleSchema.strict();
    for (const withCustomer of [true, false]) {
      const sale = apiSale(scripted, { seller, settledBy: null, withCustomer });
      expect(withSchema.parse(sale)).toEqual(sale);
    }
  });

  it("answers exactly what its schema (and so the OpenAPI document) describes", () => {
    const withSchema = apiSaleSchema.strict();
    for (const context of [
      { seller, settledBy: supervisor, withCustomer: true },
      { seller: { agent: null, integration: "crm" }, settledBy: null, withCustomer: false },
    ]) {
      const sale = apiSale(row, context);
      expect(withSchema.parse(sale)).toEqual(sale);
    }
    const erased = apiSale(
      { ...row, personalDataErasedAt: at },
      { seller, settledBy: null, withCustomer: true },
    );
    expect(withSchema.parse(erased)).toEqual(erased);
  });
});
