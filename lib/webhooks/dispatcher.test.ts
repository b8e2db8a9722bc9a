import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import {
  claimSubmission,
  markStalePendingUnknown,
  recordOutcome,
  settleUnknownSale,
} from "@/lib/db/queries/sales";
import { removeWebhookEndpoint } from "@/lib/db/queries/webhooks";
import { webhookDeliveries } from "@/lib/db/schema";
import { validSale } from "@/sandbox/test-support";
import { testDatabases } from "@/test/databases";
import { aSupervisor, anEndpoint, OPERATOR } from "@/test/webhooks";
import { allowedNetworks } from "./address-guard";
import {
  dispatchOnce,
  nextAttemptAt,
  RETRY_SCHEDULE_MS,
  startWebhookDispatcher,
  type DispatcherDeps,
} from "./dispatcher";
import { generateWebhookSecret, sealWebhookSecret } from "./secrets";
import { SOCKETS_PER_RECEIVER } from "./send";

const AUTH_SECRET = "s".repeat(40);

interface Received {
  id: string;
  type: string;
  submissionId?: string;
  status?: string;
  body: Record<string, unknown>;
}

describe("the retry schedule", () => {
  it("waits longer each time, with jitter, and gives up after about three days", () => {
    const now = new Date("2026-11-29T12:00:00Z");
    expect(nextAttemptAt(1, now, () => 0.5)!.getTime() - now.getTime()).toBe(5_000);
    expect(nextAttemptAt(1, now, () => 0)!.getTime() - now.getTime()).toBe(4_000);
    expect(nextAttemptAt(1, now, () => 1)!.getTime() - now.getTime()).toBe(6_000);
    expect(nextAttemptAt(RETRY_SCHEDULE_MS.length + 1, now)).toBeNull();
    const total = RETRY_SCHEDULE_MS.reduce((sum, wait) => sum + wait, 0);
    expect(total / 3_600_000).toBeGreaterThan(66);
    expect(total / 3_600_000).toBeLessThan(72);
  });
});

describe.each(testDatabases)("the webhooks' dispatcher on $name", ({ open }) => {
  let handle: DatabaseHandle;
  let server: Server;
  let url: string;
  let agentId: string;
  let answer = 204;
  const secret = generateWebhookSecret();
  const received: Received[] = [];

  beforeAll(async () => {
    handle = await open();
    agentId = await aSupervisor(handle.db);
    server = createServer((request: IncomingMessage, response) => {
      let raw = "";
      request.on("data", (chunk) => (raw += chunk));
      request.on("end", () => {
        if (answer >= 300) return response.writeHead(answer).end();
        // Every delivery verified as a receiver would, with a Standard Webhooks library.
        const body = new Webhook(secret).verify(raw, {
          "webhook-id": String(request.headers["webhook-id"]),
          "webhook-timestamp": String(request.headers["webhook-timestamp"]),
          "webhook-signature": String(request.headers["webhook-signature"]),
        }) as { type: string; data: { submissionId?: string; status?: string } };
        received.push({
          id: String(request.headers["webhook-id"]),
          type: body.type,
          submissionId: body.data.submissionId,
          status: body.data.status,
          body: body as never,
        });
        response.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    await anEndpoint(
      handle.db,
      url,
      ["sale.accepted", "sale.rejected", "sale.unknown", "sale.settled"],
      (id) => sealWebhookSecret(secret, AUTH_SECRET, id),
    );
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await handle.close();
  });
  beforeEach(() => {
    received.length = 0;
    answer = 204;
  });

  const deps = (): DispatcherDeps => ({
    db: handle.db,
    holder: "test",
    authSecret: AUTH_SECRET,
    limits: { timeoutMs: 5_000, maxResponseBytes: 1024, allowHttp: true, allowedNetworks: ["127.0.0.0/8"] },
  });
  const drain = async () => {
    for (let round = 0; round < 20; round += 1) {
      if ((await dispatchOnce(deps(), allowedNetworks(["127.0.0.0/8"]))) === 0) return;
    }
  };
  const sell = async () => {
    const submissionId = randomUUID();
    await claimSubmission(handle.db, {
      submissionId,
      agentId,
      request: { ...validSale({ externalId: "CRM-9" }), partnerSource: "Parceiro" } as never,
    });
    return submissionId;
  };

  it("delivers every outcome and settlement, signed, in order per sale, without customer data", async () => {
    const accepted = await sell();
    await recordOutcome(handle.db, accepted, { status: "accepted", httpStatus: 200, message: "ok" });
    const settled = await sell();
    await handle.db.execute(
      sql`update sales set updated_at = now() - interval '1 hour' where submission_id = ${settled}`,
    );
    await markStalePendingUnknown(handle.db, 60_000);
    await settleUnknownSale(handle.db, {
      submissionId: settled,
      supervisor: { id: agentId, door: "password" },
      resolution: "registered",
    });
    await drain();
    expect(received.filter((event) => event.submissionId === accepted).map((event) => event.type)).toEqual([
      "sale.accepted",
    ]);
    const ofSettled = received.filter((event) => event.submissionId === settled);
    expect(ofSettled.map((event) => [event.type, event.status])).toEqual([
      ["sale.unknown", "unknown"],
      ["sale.settled", "accepted"],
    ]);
    // As of its moment: the unknown event says nothing of the settlement that followed.
    expect(ofSettled[0]!.body).toMatchObject({ data: { settlement: null } });
    expect(ofSettled[1]!.body).toMatchObject({
      data: { settlement: { by: { id: agentId, name: "Sup" }, resolution: "registered" } },
    });
    for (const event of received) {
      expect(event.body.data).not.toHaveProperty("customer");
      expect(event.body).toMatchObject({ data: { externalId: "CRM-9", provider: { message: null } } });
    }
  });

  it("retries a receiver that failed, keeps the sale's next event behind it, then delivers both in order", async () => {
    answer = 503;
    const submissionId = await sell();
    await handle.db.execute(
      sql`update sales set updated_at = now() - interval '1 hour' where submission_id = ${submissionId}`,
    );
    await markStalePendingUnknown(handle.db, 60_000);
    await drain();
    const [waiting] = await handle.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.orderKey, submissionId));
    expect(waiting).toMatchObject({ state: "pending", attempts: 1, lastStatus: 503 });
    expect(waiting!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    await settleUnknownSale(handle.db, {
      submissionId,
      supervisor: { id: agentId, door: "password" },
      resolution: "not-registered",
    });
    answer = 204;
    await drain();
    expect(received).toEqual([]); // the first is not due yet, and the settlement waits behind it
    await handle.db
      .update(webhookDeliveries)
      .set({ nextAttemptAt: sql`now()` })
      .where(eq(webhookDeliveries.orderKey, submissionId));
    await drain();
    expect(received.map((event) => event.type)).toEqual(["sale.unknown", "sale.settled"]);
    expect(new Set(received.map((event) => event.id)).size).toBe(2);
  });

  it("goes on delivering to one receiver while another holds its attempts without answering", async () => {
    const held: ServerResponse[] = [];
    const hanging = createServer((request, response) => {
      request.resume();
      held.push(response);
    });
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    const { id: hangingId } = await anEndpoint(
      handle.db,
      `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/slow`,
      ["sale.accepted"],
      (id) => sealWebhookSecret(generateWebhookSecret(), AUTH_SECRET, id),
    );
    // No timeout in play: the held attempts wait as long as the test does.
    const dispatcher = startWebhookDispatcher({
      ...deps(),
      limits: { ...deps().limits, timeoutMs: 600_000 },
    });
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const leasedToHanging = async () =>
      (
        await handle.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, hangingId))
      ).filter((delivery) => delivery.leaseUntil && delivery.leaseUntil.getTime() > Date.now()).length;
    try {
      for (const round of [1, 2]) {
        const submissionId = await sell();
        await recordOutcome(handle.db, submissionId, { status: "accepted", httpStatus: 200, message: "ok" });
        await until(() => received.some((event) => event.submissionId === submissionId));
        await until(() => held.length === round);
      }
      // More than its share: the healthy receiver gets them all while the hanging one holds at most
      // SOCKETS_PER_RECEIVER of this instance's attempts; the rest wait unleased, for whoever has room.
      const more: string[] = [];
      for (let sale = 0; sale < SOCKETS_PER_RECEIVER + 10; sale += 1) {
        const submissionId = await sell();
        await recordOutcome(handle.db, submissionId, { status: "accepted", httpStatus: 200, message: "ok" });
        more.push(submissionId);
      }
      await until(() => more.every((id) => received.some((event) => event.submissionId === id)));
      await until(() => held.length === SOCKETS_PER_RECEIVER);
      while ((await leasedToHanging()) !== SOCKETS_PER_RECEIVER)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(held).toHaveLength(SOCKETS_PER_RECEIVER);
    } finally {
      for (const response of held) response.writeHead(204).end();
      await dispatcher.stop();
      await removeWebhookEndpoint(handle.db, hangingId, OPERATOR);
      hanging.closeAllConnections();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    }
    expect(received.map((event) => event.type)).toEqual(
      Array(SOCKETS_PER_RECEIVER + 12).fill("sale.accepted"),
    );
  });
});
