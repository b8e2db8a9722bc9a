import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "@/test/databases";
import { insertIntegration, sellByIntegration } from "@/test/integration-sales";
import type { DatabaseHandle } from "../connection";
import { insertAgent } from "./agents";
import { eq } from "drizzle-orm";
import { saleResult } from "@/lib/sales/sale-result";
import { sales } from "../schema";
import { claimSubmission, findSale, recordOutcome } from "./sales";

const request = () => ({
  customerDocument: "52998224725",
  customerName: "Cliente",
  customerEmail: "c@example.com",
  customerPhone: "11987654321",
  planId: randomUUID(),
});

describe.each(testDatabases)("findSale on $name", ({ open }) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  it("finds a sale whoever sold it, with their names: an agent, an integration alone or on the agent's behalf", async () => {
    const ana = await insertAgent(handle.db, {
      email: "ana@example.com",
      name: "Ana",
      role: "agent",
      passwordHash: null,
    });
    const crm = await insertIntegration(handle.db, "crm");
    const own = randomUUID();
    await claimSubmission(handle.db, { submissionId: own, agentId: ana.id, request: request() });
    const alone = await sellByIntegration(handle.db, {
      integrationId: crm.id,
      agentId: null,
      request: request(),
    });
    const onBehalf = await sellByIntegration(handle.db, {
      integrationId: crm.id,
      agentId: ana.id,
      request: request(),
    });

    const sellers = async (submissionId: string) => {
      const sale = await findSale(handle.db, submissionId);
      return (
        sale && { agentId: sale.agentId, agentName: sale.agentName, integrationName: sale.integrationName }
      );
    };
    expect(await sellers(own)).toEqual({ agentId: ana.id, agentName: "Ana", integrationName: null });
    expect(await sellers(alone.submissionId)).toEqual({
      agentId: null,
      agentName: null,
      integrationName: "crm",
    });
    expect(await sellers(onBehalf.submissionId)).toEqual({
      agentId: ana.id,
      agentName: "Ana",
      integrationName: "crm",
    });
    expect(await findSale(handle.db, alone.submissionId)).toMatchObject({
      status: "accepted",
      integrationId: crm.id,
      settlerName: null,
    });
    expect(await findSale(handle.db, randomUUID())).toBeUndefined();
  });
});

describe.each(testDatabases)("recordOutcome on $name", ({ open }) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  it("returns an erasure asked for while the provider answered, so the answer offers no second send", async () => {
    const bia = await insertAgent(handle.db, {
      email: "bia@example.com",
      name: "Bia",
      role: "agent",
      passwordHash: null,
    });
    const submissionId = randomUUID();
    const claim = await claimSubmission(handle.db, { submissionId, agentId: bia.id, request: request() });
    // eraseCustomer marks a pending sale and leaves it for later: the call is on its way.
    await handle.db
      .update(sales)
      .set({ erasureRequestedAt: new Date() })
      .where(eq(sales.submissionId, submissionId));
    const recorded = await recordOutcome(handle.db, submissionId, {
      status: "failed",
      code: "partner_api.unreachable",
    });
    expect(recorded.erasureRequestedAt).toBeInstanceOf(Date);
    const answer = saleResult({ ...claim.sale, ...recorded }, false);
    expect(answer).toMatchObject({ status: "failed", canRetry: false });
  });
});
