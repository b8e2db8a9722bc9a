import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import {
  claimSubmission,
  markStalePendingUnknown,
  recordOutcome,
  settleUnknownSale,
} from "@/lib/db/queries/sales";
import { eraseCustomer } from "@/lib/db/queries/customer-data";
import { webhookDeliveries, webhookEvents } from "@/lib/db/schema";
import { validSale } from "@/sandbox/test-support";
import { testDatabases } from "@/test/databases";
import { aSupervisor, anEndpoint, OPERATOR } from "@/test/webhooks";
import {
  claimDueDeliveries,
  disableWebhookEndpoint,
  markDelivered,
  markFailedAttempt,
  removeWebhookEndpoint,
  replayWebhookEvents,
} from "./webhooks";

const request = () => ({ ...validSale(), partnerSource: "Parceiro" }) as never;

describe.each(testDatabases)("the webhooks' outbox on $name", ({ name, open }) => {
  let handle: DatabaseHandle;
  let agentId: string;
  beforeAll(async () => {
    handle = await open();
    agentId = await aSupervisor(handle.db);
  });
  afterAll(() => handle.close());

  const sell = async () => {
    const submissionId = randomUUID();
    await claimSubmission(handle.db, { submissionId, agentId, request: request() });
    return submissionId;
  };
  const eventsOf = (submissionId: string) =>
    handle.db
      .select({ type: webhookEvents.type, seq: webhookEvents.seq })
      .from(webhookEvents)
      .where(eq(webhookEvents.submissionId, submissionId))
      .orderBy(webhookEvents.seq);

  it("writes no event while no endpoint hears it", async () => {
    const submissionId = await sell();
    await recordOutcome(handle.db, submissionId, { status: "accepted", httpStatus: 200, message: "ok" });
    expect(await eventsOf(submissionId)).toEqual([]);
  });

  it("writes each outcome and settlement in the change's transaction, one delivery per endpoint that hears it", async () => {
    const all = await anEndpoint(handle.db, "https://crm.example/hooks", [
      "sale.accepted",
      "sale.unknown",
      "sale.settled",
      "sale.rejected",
    ]);
    const settledOnly = await anEndpoint(handle.db, "https://erp.example/hooks", ["sale.settled"]);
    const accepted = await sell();
    await recordOutcome(handle.db, accepted, { status: "accepted", httpStatus: 200, message: "ok" });
    expect((await eventsOf(accepted)).map((event) => event.type)).toEqual(["sale.accepted"]);

    // Interrupted (the sweep), then settled by a supervisor: two events, in order, the second to both endpoints.
    const unknown = await sell();
    await handle.db.execute(
      // The sweep takes pending rows older than its limit: make this one old.
      (await import("drizzle-orm"))
        .sql`update sales set updated_at = now() - interval '1 hour' where submission_id = ${unknown}`,
    );
    expect(await markStalePendingUnknown(handle.db, 60_000)).toBeGreaterThanOrEqual(1);
    await settleUnknownSale(handle.db, {
      submissionId: unknown,
      supervisor: { id: agentId, door: "password" },
      resolution: "registered",
    });
    const events = await eventsOf(unknown);
    expect(events.map((event) => event.type)).toEqual(["sale.unknown", "sale.settled"]);
    const deliveries = await handle.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.orderKey, unknown));
    expect(deliveries.map((delivery) => delivery.endpointId).sort()).toEqual(
      [all.id, all.id, settledOnly.id].sort(),
    );

    // Claimed in order: the settlement waits for the unknown one at the endpoint that hears both.
    const first = await claimDueDeliveries(handle.db, { holder: "a", limit: 100, leaseMs: 60_000 });
    const forAll = first.filter(
      (delivery) => delivery.endpointId === all.id && delivery.submissionId === unknown,
    );
    expect(forAll.map((delivery) => delivery.type)).toEqual(["sale.unknown"]);
    // Another dispatcher takes none of what is leased, nor the settlement behind it.
    const second = await claimDueDeliveries(handle.db, { holder: "b", limit: 100, leaseMs: 60_000 });
    expect(
      second.filter((delivery) => delivery.submissionId === unknown && delivery.endpointId === all.id),
    ).toEqual([]);
    await markDelivered(handle.db, "a", [
      { eventId: forAll[0]!.eventId, endpointId: all.id, durationMs: 5, statusCode: 204 },
    ]);
    const third = await claimDueDeliveries(handle.db, { holder: "b", limit: 100, leaseMs: 60_000 });
    expect(
      third
        .filter((delivery) => delivery.submissionId === unknown && delivery.endpointId === all.id)
        .map((d) => d.type),
    ).toEqual(["sale.settled"]);
  });

  it("tells of a customer's erasure in its transaction: the sales' ids, protocols and externalIds, no personal data", async () => {
    await anEndpoint(handle.db, "https://crm.example/erasures", ["customer.erased"]);
    const sale = { ...validSale({ externalId: "CRM-77" }), partnerSource: "Parceiro" } as Record<
      string,
      string
    >;
    const submissionId = randomUUID();
    await claimSubmission(handle.db, { submissionId, agentId, request: sale as never });
    await recordOutcome(handle.db, submissionId, { status: "accepted", httpStatus: 200, message: "ok" });
    await eraseCustomer(handle.db, {
      cpf: sale.customerDocument!,
      digest: "digest-of-cpf",
      audit: { actor: "cli:test", door: "cli", reason: "pedido do titular" },
    });
    const [event] = await handle.db
      .select()
      .from(webhookEvents)
      .where(eq(webhookEvents.type, "customer.erased"));
    expect(event!.snapshot).toEqual({
      sales: [
        { submissionId, protocol: expect.stringMatching(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/), externalId: "CRM-77" },
      ],
    });
    const text = JSON.stringify(event);
    for (const personal of [
      sale.customerDocument,
      sale.customerEmail,
      sale.customerName,
      sale.customerPhone,
    ]) {
      expect(text).not.toContain(personal);
    }
  });

  it("gives up after the last retry and marks the endpoint failing once", async () => {
    const endpoint = await anEndpoint(handle.db, "https://down.example/hooks", ["sale.rejected"]);
    const submissionId = await sell();
    await recordOutcome(handle.db, submissionId, {
      status: "rejected",
      httpStatus: 422,
      message: "no",
      fields: [],
    });
    const [claimed] = (
      await claimDueDeliveries(handle.db, { holder: "a", limit: 100, leaseMs: 60_000 })
    ).filter((delivery) => delivery.endpointId === endpoint.id);
    const failed = await markFailedAttempt(
      handle.db,
      { eventId: claimed!.eventId, endpointId: endpoint.id, holder: "a" },
      { durationMs: 10_000, statusCode: null, error: "timeout" },
      null,
    );
    expect(failed).toEqual({ endpointNowFailing: true });
    await disableWebhookEndpoint(handle.db, endpoint.id, OPERATOR);
  });

  it("replays a given-up delivery with a fresh schedule, only to endpoints that hear it, never one in flight", async () => {
    const hears = await anEndpoint(handle.db, "https://replay.example/hooks", ["sale.failed"]);
    const deaf = await anEndpoint(handle.db, "https://deaf.example/hooks", ["customer.erased"]);
    const submissionId = await sell();
    await recordOutcome(handle.db, submissionId, { status: "failed", code: "partner_api.unreachable" });
    const [event] = await eventsOf(submissionId);
    const mine = async () =>
      (await claimDueDeliveries(handle.db, { holder: "a", limit: 100, leaseMs: 60_000 })).filter(
        (delivery) => delivery.endpointId === hears.id,
      );
    const [claimed] = await mine();
    await markFailedAttempt(
      handle.db,
      { eventId: claimed!.eventId, endpointId: hears.id, holder: "a" },
      { durationMs: 5, statusCode: 503, error: "status_503" },
      null,
    );
    const replay = (endpointId: string) =>
      replayWebhookEvents(handle.db, { eventId: claimed!.eventId, endpointId, actor: OPERATOR });
    // Named, an endpoint that does not hear sale.failed still gets nothing.
    expect(await replay(deaf.id)).toBe(0);
    expect(await replay(hears.id)).toBe(1);
    const delivery = async () =>
      (
        await handle.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, hears.id))
      )[0]!;
    expect(await delivery()).toMatchObject({ state: "pending", attempts: 0, lastError: null });
    // In flight again (leased): a replay now leaves it to its attempt.
    expect(await mine()).toHaveLength(1);
    expect(await replay(hears.id)).toBe(0);
    expect((await delivery()).leaseUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(event!.type).toBe("sale.failed");
    await removeWebhookEndpoint(handle.db, hears.id, OPERATOR);
    await removeWebhookEndpoint(handle.db, deaf.id, OPERATOR);
  });

  it("records deliveries that ended together, though one's endpoint was removed meanwhile", async () => {
    const endpoints = [];
    for (const name of ["kept", "removed"]) {
      endpoints.push(await anEndpoint(handle.db, `https://${name}.example/hooks`, ["sale.accepted"]));
    }
    const [kept, removed] = endpoints as [(typeof endpoints)[0], (typeof endpoints)[0]];
    const submissionId = await sell();
    await recordOutcome(handle.db, submissionId, { status: "accepted", httpStatus: 200, message: "ok" });
    const claimed = (
      await claimDueDeliveries(handle.db, { holder: "a", limit: 100, leaseMs: 60_000 })
    ).filter(
      (delivery) =>
        delivery.submissionId === submissionId && [kept.id, removed.id].includes(delivery.endpointId),
    );
    expect(claimed).toHaveLength(2);
    await removeWebhookEndpoint(handle.db, removed.id, OPERATOR);
    await markDelivered(
      handle.db,
      "a",
      claimed.map((delivery) => ({ ...delivery, durationMs: 3, statusCode: 204 })),
    );
    const rows = await handle.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.orderKey, submissionId));
    expect(rows.find((row) => row.endpointId === kept.id)?.state).toBe("delivered");
    expect(rows.some((row) => row.endpointId === removed.id)).toBe(false);
    await removeWebhookEndpoint(handle.db, kept.id, OPERATOR);
  });

  it.runIf(name === "PostgreSQL")(
    "removes an endpoint with its deliveries; one a sale in flight writes meanwhile is never claimed",
    async () => {
      const leaving = await anEndpoint(handle.db, "https://leaving.example/hooks", ["sale.accepted"]);
      const delivered = await sell();
      await recordOutcome(handle.db, delivered, { status: "accepted", httpStatus: 200, message: "ok" });
      const inFlight = await sell();
      let commit!: () => void;
      const committed = new Promise<void>((resolve) => (commit = resolve));
      let enqueued!: () => void;
      const enqueuedYet = new Promise<void>((resolve) => (enqueued = resolve));
      // This sale's transaction has written its delivery to the endpoint and commits after the removal.
      const sale = handle.db.transaction(async (tx) => {
        await recordOutcome(tx, inFlight, { status: "accepted", httpStatus: 200, message: "ok" });
        enqueued();
        await committed;
      });
      await enqueuedYet;
      expect(await removeWebhookEndpoint(handle.db, leaving.id, OPERATOR)).toMatchObject({ id: leaving.id });
      commit();
      await sale;

      const left = await handle.db
        .select({ orderKey: webhookDeliveries.orderKey })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.endpointId, leaving.id));
      expect(left).toEqual([{ orderKey: inFlight }]);
      const claimed = await claimDueDeliveries(handle.db, { holder: "c", limit: 1_000, leaseMs: 60_000 });
      expect(claimed.filter((delivery) => delivery.endpointId === leaving.id)).toEqual([]);
    },
  );
});
