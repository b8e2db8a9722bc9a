import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "@/test/databases";
import { insertIntegration, sellByIntegration } from "@/test/integration-sales";
import type { DatabaseHandle } from "../connection";
import { insertAgent } from "./agents";
import { claimSubmission, findSale } from "./sales";

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
      resolverName: null,
    });
    expect(await findSale(handle.db, randomUUID())).toBeUndefined();
  });
});
