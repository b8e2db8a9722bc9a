import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import { insertAgent } from "@/lib/db/queries/agents";
import {
  claimSubmission,
  findHeldSaleOf,
  markStalePendingUnknown,
  settleUnknownSale,
} from "@/lib/db/queries/sales";
import { sales } from "@/lib/db/schema";
import { createProviderClient, type ProviderClient } from "@/lib/provider";
import type { ValidSale } from "@/lib/validation/sale";
import type { Stats } from "@/sandbox/state";
import {
  clientConfigFor,
  control,
  startSandbox,
  validSale,
  type RunningSandbox,
} from "@/sandbox/test-support";
import { testDatabases } from "@/test/databases";
import { newProtocol, parseProtocol } from "./protocol";
import { submitSale } from "./submit-sale";

const silent = { info() {}, warn() {}, error() {} };

describe.each(testDatabases)("the sales ledger on $name", ({ open }) => {
  let handle: DatabaseHandle;
  let sandbox: RunningSandbox;
  let api: ProviderClient;
  let agentId: string;
  let otherAgentId: string;

  const clientFor = (baseUrl: string, timeoutMs = 5_000) =>
    createProviderClient(clientConfigFor(baseUrl, { timeoutMs }), { log: silent });
  const submit = (submissionId: string, sale: ValidSale, client = api, agent = agentId) =>
    submitSale(
      { db: handle.db, provider: client, partnerSource: "Parceiro" },
      { agentId: agent, submissionId, sale },
    );
  const stats = async () => (await control<Stats>(sandbox.url, "GET", "stats")).body;
  const sale = () => validSale() as unknown as ValidSale;
  const row = async (submissionId: string) =>
    (await handle.db.select().from(sales).where(eq(sales.submissionId, submissionId)))[0];

  beforeAll(async () => {
    handle = await open();
    sandbox = await startSandbox();
    api = clientFor(sandbox.url);
    agentId = (
      await insertAgent(handle.db, { email: "a@example.com", name: "Ana", role: "agent", passwordHash: null })
    ).id;
    otherAgentId = (
      await insertAgent(handle.db, { email: "b@example.com", name: "Bia", role: "agent", passwordHash: null })
    ).id;
  });
  afterAll(async () => {
    await sandbox.close();
    await handle.close();
  });
  afterEach(() => control(sandbox.url, "POST", "reset"));

  it("records the sale as sent and its accepted outcome", async () => {
    const submissionId = randomUUID();
    const input = sale();
    const result = await submit(submissionId, input);
    expect(result).toMatchObject({
      kind: "recorded",
      replay: false,
      sale: { status: "accepted", upstreamStatus: 200 },
    });
    const recorded = await row(submissionId);
    expect(recorded?.request).toEqual({ ...input, partnerSource: "Parceiro" });
    expect(recorded?.upstreamMessage).toBe("Venda de parceiro registrada.");
    expect(recorded?.completedAt).toBeInstanceOf(Date);
  });

  it("gives each sale its own protocol with the ledger row, and keeps it through a retry", async () => {
    const closed = await startSandbox();
    const unreachable = clientFor(closed.url);
    await closed.close();
    const submissionId = randomUUID();
    const failed = await submit(submissionId, sale(), unreachable);
    const protocol = failed.kind === "recorded" ? failed.sale.protocol : "";
    expect(parseProtocol(protocol)).toBe(protocol);

    const retried = await submit(submissionId, sale());
    expect(retried).toMatchObject({ sale: { status: "accepted", attempts: 2, protocol } });
    const other = await submit(randomUUID(), sale());
    expect(other.kind === "recorded" && other.sale.protocol).not.toBe(protocol);
  });

  it("finds the customer's earlier accepted sale of the same plan, not the sale being sent nor other plans", async () => {
    const input = sale();
    const first = randomUUID();
    const accepted = await submit(first, input);
    const lookFor = (planId: string, exceptSubmissionId: string) =>
      findHeldSaleOf(handle.db, { customerDocument: input.customerDocument, planId, exceptSubmissionId });

    expect(await lookFor(input.planId.toUpperCase(), randomUUID())).toEqual({
      protocol: accepted.kind === "recorded" ? accepted.sale.protocol : "",
      createdAt: expect.any(Date),
      status: "accepted",
    });
    expect(await lookFor(input.planId, first)).toBeUndefined();
    expect(await lookFor("c18b5f73-96a0-4d2e-b4f1-7a3e8c6d9052", randomUUID())).toBeUndefined();
  });

  it("draws again when a new sale's protocol is already taken", async () => {
    const taken = await claimSubmission(handle.db, { submissionId: randomUUID(), agentId, request: sale() });
    const fresh = newProtocol();
    const draws = [taken.sale.protocol, fresh];
    const claim = await claimSubmission(
      handle.db,
      { submissionId: randomUUID(), agentId, request: sale() },
      () => draws.shift()!,
    );
    expect(claim).toMatchObject({ claimed: true, sale: { protocol: fresh } });

    // Inside a transaction too (a scripted sale's claim): the collision leaves the transaction usable.
    const freshToo = newProtocol();
    const again = [taken.sale.protocol, freshToo];
    const inTransaction = await handle.db.transaction(async (tx) => {
      const claimed = await claimSubmission(
        tx,
        { submissionId: randomUUID(), agentId, request: sale() },
        () => again[0]!,
      ).catch((error: unknown) => error);
      expect(claimed).toBeInstanceOf(Error);
      return claimSubmission(tx, { submissionId: randomUUID(), agentId, request: sale() }, () =>
        again.shift()!,
      );
    });
    expect(inTransaction).toMatchObject({ claimed: true, sale: { protocol: freshToo } });
  });

  it("answers the same submissionId from the ledger without calling the upstream again", async () => {
    const submissionId = randomUUID();
    const input = sale();
    await submit(submissionId, input);
    const again = await submit(submissionId, input);
    expect(again).toMatchObject({ kind: "recorded", replay: true, sale: { status: "accepted" } });
    expect((await stats()).saleRequests).toBe(1);
  });

  it("makes one upstream call for two submissions at the same moment", async () => {
    await control(sandbox.url, "POST", "latency", { ms: 300, target: "sale" });
    const submissionId = randomUUID();
    const input = sale();
    const results = await Promise.all([submit(submissionId, input), submit(submissionId, input)]);
    const rows = results.map((result) => result.kind === "recorded" && [result.sale.status, result.replay]);
    expect(rows.sort()).toEqual([
      ["accepted", false],
      ["pending", true],
    ]);
    expect((await stats()).saleRequests).toBe(1);
  });

  it("sends a failed submission (nothing was sent) again under the same submissionId", async () => {
    const closed = await startSandbox();
    const unreachable = clientFor(closed.url);
    await closed.close();
    const submissionId = randomUUID();
    const input = sale();
    expect(await submit(submissionId, input, unreachable)).toMatchObject({ sale: { status: "failed" } });

    const retried = await submit(submissionId, input);
    expect(retried).toMatchObject({
      kind: "recorded",
      replay: false,
      sale: { status: "accepted", attempts: 2 },
    });
    expect((await stats()).salesAccepted).toBe(1);
  });

  it("never sends an unknown sale again", async () => {
    await control(sandbox.url, "POST", "faults", { kind: "timeout" });
    const submissionId = randomUUID();
    const input = sale();
    const timedOut = await submit(submissionId, input, clientFor(sandbox.url, 300));
    expect(timedOut).toMatchObject({ sale: { status: "unknown", outcomeDetail: "timeout" } });
    expect(await submit(submissionId, input)).toMatchObject({ replay: true, sale: { status: "unknown" } });
    expect((await stats()).saleRequests).toBe(1);
  });

  it("records a rejection with the upstream message and the fields it names", async () => {
    const input = sale();
    await submit(randomUUID(), input);
    const duplicate = await submit(randomUUID(), input);
    expect(duplicate).toMatchObject({
      sale: {
        status: "rejected",
        upstreamStatus: 409,
        upstreamMessage: "O cliente já possui este plano.",
      },
    });
    const invalid = await submit(randomUUID(), { ...sale(), customerPhone: "10987654321" });
    expect(invalid).toMatchObject({
      sale: { status: "rejected", upstreamStatus: 400, rejectedFields: ["customerPhone"] },
    });
  });

  it("does not let another agent reuse a submissionId", async () => {
    const submissionId = randomUUID();
    await submit(submissionId, sale());
    expect(await submit(submissionId, sale(), api, otherAgentId)).toEqual({ kind: "not-yours" });
    expect((await stats()).saleRequests).toBe(1);
  });

  it("turns pending rows older than the timeout into unknown at start-up", async () => {
    const stale = randomUUID();
    const fresh = randomUUID();
    const request = { ...sale(), partnerSource: "Parceiro" };
    await handle.db.insert(sales).values([
      {
        submissionId: stale,
        protocol: newProtocol(),
        agentId,
        request,
        updatedAt: sql`now() - interval '1 minute'`,
      },
      { submissionId: fresh, protocol: newProtocol(), agentId, request },
    ]);
    expect(await markStalePendingUnknown(handle.db, 15_000)).toBe(1);
    expect(await row(stale)).toMatchObject({ status: "unknown", outcomeDetail: "interrupted" });
    expect((await row(fresh))?.status).toBe("pending");
  });

  it("leaves a stale pending row alone while this process holds its answer for the database", async () => {
    const held = randomUUID();
    const request = { ...sale(), partnerSource: "Parceiro" };
    await handle.db.insert(sales).values({
      submissionId: held,
      protocol: newProtocol(),
      agentId,
      request,
      updatedAt: sql`now() - interval '1 minute'`,
    });
    expect(await markStalePendingUnknown(handle.db, 15_000, [held])).toBe(0);
    expect((await row(held))?.status).toBe("pending");
  });

  it("lets a supervisor settle an unknown sale once, and nothing else", async () => {
    await control(sandbox.url, "POST", "faults", { kind: "500" });
    const unknown = randomUUID();
    await submit(unknown, sale());
    const accepted = randomUUID();
    await submit(accepted, sale());

    const settled = await settleUnknownSale(handle.db, {
      submissionId: unknown,
      supervisor: { id: otherAgentId, door: "password" },
      resolution: "registered",
    });
    // The provider's answer (a 500) stays; the supervisor's confirmation is recorded beside it.
    expect(settled).toMatchObject({
      status: "accepted",
      upstreamStatus: 500,
      outcomeDetail: "server-error",
      resolution: "registered",
      settledBy: otherAgentId,
    });
    expect(settled?.settledAt).toBeInstanceOf(Date);
    const again = {
      submissionId: unknown,
      supervisor: { id: otherAgentId, door: "password" },
      resolution: "not-registered" as const,
    };
    expect(await settleUnknownSale(handle.db, again)).toBeUndefined();
    expect(await settleUnknownSale(handle.db, { ...again, submissionId: accepted })).toBeUndefined();
    expect((await row(unknown))?.status).toBe("accepted");
  });
});
