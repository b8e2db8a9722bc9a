import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db/connection";
import { insertAgent } from "@/lib/db/queries/agents";
import { listAuditEvents } from "@/lib/db/queries/audit-events";
import { customerSales, eraseCustomer, eraseExpiredBatch } from "@/lib/db/queries/customer-data";
import { recordAuditEvent } from "@/lib/db/queries/audit-events";
import { releaseLease, takeLease } from "@/lib/db/queries/job-leases";
import { claimSubmission, settleUnknownSale } from "@/lib/db/queries/sales";
import { auditEvents, sales, type SaleStatus } from "@/lib/db/schema";
import type { PartnerSaleRequestBody } from "@/lib/provider/types";
import { newProtocol } from "@/lib/sales/protocol";
import { cpfCheckDigits } from "@/lib/validation/cpf";
import { testDatabases } from "@/test/databases";
import { insertIntegration, sellByIntegration } from "@/test/integration-sales";
import { customerDigestKey, customerDocumentDigest } from "./digest";
import { RETENTION_JOB, runRetention } from "./retention";

const NOW = new Date("2026-11-24T12:00:00Z");
const DAY = 86_400_000;
const digestKey = customerDigestKey("a test secret of at least thirty-two characters");

let customers = 0;
/** A customer no other sale in the test has: every personal value unique, so a scan can look for each. */
function customer(): PartnerSaleRequestBody {
  const n = String(++customers).padStart(3, "0");
  const base = `${n}${String(Date.now()).slice(-6)}`;
  return {
    customerDocument: `${base}${cpfCheckDigits(base)}`,
    customerName: `Cliente Único ${n}${randomUUID().slice(0, 6)}`,
    customerEmail: `cliente.${n}.${randomUUID().slice(0, 6)}@example.com`,
    customerPhone: `119${String(Date.now()).slice(-5)}${n}`,
    birthDate: `19${String(50 + customers).slice(-2)}-03-14`,
    planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
    externalId: `CRM-${n}`,
  };
}

const personalValues = (request: PartnerSaleRequestBody) => [
  request.customerDocument,
  request.customerName,
  request.customerEmail,
  request.customerPhone,
  request.birthDate!,
];

const OPERATOR = { actor: "cli:test", door: "cli" };
const RETENTION = { actor: "retention", door: "system" };

describe.each(testDatabases)("customer-data retention on $name", ({ open }) => {
  let handle: DatabaseHandle & { databaseUrl?: string };
  let agentId: string;
  let supervisorId: string;

  async function insertSale(status: SaleStatus, ageDays: number, request = customer()) {
    const row = { submissionId: randomUUID(), protocol: newProtocol() };
    await handle.db.insert(sales).values({
      ...row,
      agentId,
      status,
      request,
      createdAt: new Date(NOW.getTime() - ageDays * DAY),
      // What the provider answered stays: its words are the business's record, not the customer's data.
      ...(status === "accepted"
        ? { upstreamStatus: 200, upstreamMessage: "Venda de parceiro registrada." }
        : {}),
    });
    return { ...row, request };
  }

  const stored = async (submissionId: string) =>
    (await handle.db.select().from(sales).where(eq(sales.submissionId, submissionId)))[0]!;
  /** Every column of every sale, and every audit row, as the database prints them. */
  const everything = async () => {
    const rows = await handle.db.execute(sql`
      select coalesce(string_agg(s::text, E'\n'), '') as text from sales s
      union all select coalesce(string_agg(a::text, E'\n'), '') from audit_events a`);
    return (rows as unknown as { rows: { text: string }[] }).rows.map((row) => row.text).join("\n");
  };
  const retention = (overrides: Partial<Parameters<typeof runRetention>[1]> = {}) =>
    runRetention(handle.db, { retentionDays: 365, actor: RETENTION, now: NOW, ...overrides });

  beforeAll(async () => {
    handle = await open();
    const agent = await insertAgent(handle.db, {
      email: "ana@example.com",
      name: "Ana",
      role: "agent",
      passwordHash: null,
    });
    const supervisor = await insertAgent(handle.db, {
      email: "sup@example.com",
      name: "Sup",
      role: "supervisor",
      passwordHash: null,
    });
    agentId = agent.id;
    supervisorId = supervisor.id;
  });
  afterAll(() => handle.close());

  it("erases the personal data of settled sales past retention, in place, and nothing else", async () => {
    const old = await Promise.all(
      (["accepted", "rejected", "failed"] as const).map((status) => insertSale(status, 400)),
    );
    const unknown = await insertSale("unknown", 400);
    const pending = await insertSale("pending", 400);
    const recent = await insertSale("accepted", 30);

    // Small batches: the run goes batch after batch, renewing its lease.
    const run = await retention({ batchSize: 2 });
    expect(run).toEqual({ ran: true, expired: 3, requested: 0 });

    const text = await everything();
    for (const sale of old) {
      for (const value of personalValues(sale.request)) expect(text).not.toContain(value);
      const row = await stored(sale.submissionId);
      expect(row.personalDataErasure).toBe("retention");
      expect(row.personalDataErasedAt).toBeInstanceOf(Date);
      expect(row.customerNameFolded).toBe("");
      // What the business still needs stays: protocol, externalId, plan, status, agent, times, the masked CPF.
      expect(row).toMatchObject({ protocol: sale.protocol, status: expect.any(String), agentId });
      expect(row.request).toEqual({
        customerDocument: `***${sale.request.customerDocument.slice(3, 9)}**`,
        customerName: "",
        customerEmail: "",
        customerPhone: "",
        planId: sale.request.planId,
        externalId: sale.request.externalId,
      });
      // Retention keeps no way back to the customer: no digest (a request's erasure keeps one, below).
      expect(row.customerDocumentDigest).toBeNull();
      if (row.status === "accepted") expect(row.upstreamMessage).toBe("Venda de parceiro registrada.");
    }
    // Unsettled sales keep their data: the provider may hold them, a supervisor asks with it.
    for (const sale of [unknown, pending, recent]) {
      const row = await stored(sale.submissionId);
      expect(row.request).toEqual(sale.request);
      expect(row.personalDataErasedAt).toBeNull();
    }

    // Settled, the unknown sale goes at the next run.
    await settleUnknownSale(handle.db, {
      submissionId: unknown.submissionId,
      supervisor: { id: supervisorId, door: "oidc:https://idp.example" },
      resolution: "registered",
    });
    // The settlement is on the trail: who, which sale, what they learnt.
    expect(
      (await listAuditEvents(handle.db, { limit: 100 })).find((event) => event.action === "sale.settled"),
    ).toMatchObject({
      actor: `agent:${supervisorId}`,
      door: "oidc:https://idp.example",
      agentEmail: "sup@example.com",
      protocol: unknown.protocol,
      details: { resolution: "registered" },
    });
    expect(await retention()).toEqual({ ran: true, expired: 1, requested: 0 });
    expect((await stored(unknown.submissionId)).personalDataErasure).toBe("retention");
    // Nothing left to do: a run that erases nothing records nothing.
    const events = await listAuditEvents(handle.db, { limit: 100 });
    expect(await retention()).toEqual({ ran: true, expired: 0, requested: 0 });
    expect(await listAuditEvents(handle.db, { limit: 100 })).toHaveLength(events.length);
    // One event a batch (2 here), in the batch's transaction, with the protocols it erased.
    const recorded = events.filter((event) => event.action === "retention.erased");
    expect(recorded.map(({ details: { protocols: _, ...counts } }) => counts)).toEqual(
      [2, 1, 1].map((expired) => ({
        expired,
        requested: 0,
        retentionDays: 365,
        createdBefore: "2025-11-24T12:00:00.000Z",
      })),
    );
    expect(recorded.flatMap((event) => event.details.protocols as string[]).sort()).toEqual(
      [...old, unknown].map((sale) => sale.protocol).sort(),
    );
    expect(recorded.every((event) => event.protocol === null && event.actor === "retention")).toBe(true);
  });

  it("erases at most a batch's sales a statement", async () => {
    const expiring = await Promise.all(Array.from({ length: 5 }, () => insertSale("accepted", 400)));
    const createdBefore = new Date(NOW.getTime() - 365 * DAY);
    const batches = [];
    for (let batch = 0; batch < 4; batch++)
      batches.push(await eraseExpiredBatch(handle.db, { createdBefore, limit: 2 }));
    expect(batches.map((protocols) => protocols.length)).toEqual([2, 2, 1, 0]);
    expect(batches.flat().sort()).toEqual(expiring.map((sale) => sale.protocol).sort());
  });

  it("answers an erased sale's key with what was recorded: a failed one is not sent again", async () => {
    const failed = await insertSale("failed", 400);
    await retention();
    const claim = await claimSubmission(handle.db, {
      submissionId: failed.submissionId,
      agentId,
      request: customer(),
    });
    expect(claim.claimed).toBe(false);
    expect(claim.sale).toMatchObject({ status: "failed", personalDataErasure: "retention" });
  });

  it("carries out a customer's erasure request now, and for unsettled sales once they are settled", async () => {
    const person = customer();
    const settled = await insertSale("accepted", 10, person);
    const open = await insertSale("unknown", 5, person);
    const other = await insertSale("accepted", 10);

    const digest = customerDocumentDigest(person.customerDocument, digestKey);
    const result = await eraseCustomer(handle.db, {
      cpf: person.customerDocument,
      digest,
      audit: { ...OPERATOR, reason: "chamado 1" },
    });
    expect(result).toEqual({ erased: [settled.protocol], waiting: [open.protocol] });
    expect(await stored(settled.submissionId)).toMatchObject({
      personalDataErasure: "request",
      customerDocumentDigest: digest,
    });
    const [event] = (await listAuditEvents(handle.db, { limit: 1_000 })).filter(
      (entry) => entry.action === "customer.erased",
    );
    expect(event).toMatchObject({ actor: "cli:test", door: "cli", reason: "chamado 1", details: result });
    expect((await stored(open.submissionId)).request).toEqual(person);
    expect((await stored(other.submissionId)).request).toEqual(other.request);

    // Found by CPF afterwards, erased or not.
    const found = await customerSales(handle.db, { cpf: person.customerDocument, digest });
    expect(found.map(({ sale }) => sale.protocol)).toEqual([settled.protocol, open.protocol]);
    // The erased one only by its digest: with another, only the sale still holding the CPF.
    expect(
      await customerSales(handle.db, { cpf: person.customerDocument, digest: "0".repeat(64) }),
    ).toHaveLength(1);

    // Settled by a supervisor, it is erased in the same transaction.
    await settleUnknownSale(handle.db, {
      submissionId: open.submissionId,
      supervisor: { id: supervisorId, door: "oidc:https://idp.example" },
      resolution: "registered",
    });
    expect(await stored(open.submissionId)).toMatchObject({
      status: "accepted",
      personalDataErasure: "request",
    });
    // One that ended otherwise (a late answer: failed) waits for retention's run, even with retention off, and
    // is not sent again meanwhile.
    const late = await insertSale("pending", 2, person);
    await eraseCustomer(handle.db, { cpf: person.customerDocument, digest, audit: OPERATOR });
    await handle.db.update(sales).set({ status: "failed" }).where(eq(sales.submissionId, late.submissionId));
    const retry = await claimSubmission(handle.db, {
      submissionId: late.submissionId,
      agentId,
      request: person,
    });
    expect(retry).toMatchObject({ claimed: false, sale: { status: "failed", personalDataErasedAt: null } });
    expect(await retention({ retentionDays: null })).toEqual({ ran: true, expired: 0, requested: 1 });
    expect((await stored(late.submissionId)).personalDataErasure).toBe("request");
    const text = await everything();
    for (const value of personalValues(person)) expect(text).not.toContain(value);
  });

  it("finds a customer's sales whoever sold them: an agent, an integration alone or on the agent's behalf", async () => {
    const person = customer();
    const crm = await insertIntegration(handle.db, "crm");
    const own = await insertSale("accepted", 10, person);
    const alone = await sellByIntegration(handle.db, {
      integrationId: crm.id,
      agentId: null,
      request: person,
    });
    const onBehalf = await sellByIntegration(handle.db, { integrationId: crm.id, agentId, request: person });

    const digest = customerDocumentDigest(person.customerDocument, digestKey);
    const found = await customerSales(handle.db, { cpf: person.customerDocument, digest });
    const ana = { id: agentId, name: "Ana", email: "ana@example.com" };
    const integration = { id: crm.id, name: "crm" };
    expect(
      found.map(({ sale, agent, integration }) => ({ protocol: sale.protocol, agent, integration })),
    ).toEqual([
      { protocol: own.protocol, agent: ana, integration: null },
      { protocol: alone.protocol, agent: null, integration },
      { protocol: onBehalf.protocol, agent: ana, integration },
    ]);
  });

  it("runs on one instance at a time: two at once erase and record each sale once", async () => {
    const expiring = await Promise.all(Array.from({ length: 9 }, () => insertSale("accepted", 400)));
    // A second instance: its own connection pool on PostgreSQL; on PGlite (one process holds the database)
    // a second caller in the same process, as the CLI is through the app's socket.
    const second = handle.databaseUrl
      ? await openDatabase({ databaseUrl: handle.databaseUrl, dataDir: "", role: "server" })
      : undefined;
    try {
      const before = await listAuditEvents(handle.db, { limit: 1_000 });
      const runs = await Promise.all([
        retention({ batchSize: 2 }),
        runRetention((second ?? handle).db, {
          retentionDays: 365,
          actor: RETENTION,
          now: NOW,
          batchSize: 2,
        }),
      ]);
      expect(runs[0]!.expired + runs[1]!.expired).toBe(expiring.length);
      const after = await listAuditEvents(handle.db, { limit: 1_000 });
      expect(
        after
          .slice(before.length)
          .flatMap((event) => event.details.protocols as string[])
          .sort(),
      ).toEqual(expiring.map((sale) => sale.protocol).sort());
      for (const sale of expiring)
        expect((await stored(sale.submissionId)).personalDataErasure).toBe("retention");
    } finally {
      await second?.close();
    }
  });

  it("does nothing while another instance holds the job", async () => {
    const expiring = await insertSale("accepted", 400);
    expect(await takeLease(handle.db, RETENTION_JOB, "another instance", 60_000)).toBe(true);
    expect(await retention()).toEqual({ ran: false, expired: 0, requested: 0 });
    expect((await stored(expiring.submissionId)).personalDataErasedAt).toBeNull();
    await releaseLease(handle.db, RETENTION_JOB, "another instance");
    expect(await retention()).toEqual({ ran: true, expired: 1, requested: 0 });
  });

  it("leases a job to one holder at a time, and frees it when given back or expired", async () => {
    expect(await takeLease(handle.db, "test-job", "a", 60_000)).toBe(true);
    expect(await takeLease(handle.db, "test-job", "b", 60_000)).toBe(false);
    expect(await takeLease(handle.db, "test-job", "a", 60_000)).toBe(true);
    await releaseLease(handle.db, "test-job", "a");
    expect(await takeLease(handle.db, "test-job", "b", 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // b's lease ran out without being given back (b died).
    expect(await takeLease(handle.db, "test-job", "c", 60_000)).toBe(true);
  });

  it("keeps the audit trail append-only", async () => {
    // Row triggers fire on rows: there is one, whatever ran before.
    await recordAuditEvent(handle.db, {
      action: "customer.found",
      ...OPERATOR,
      details: { sales: [] },
    });
    const changes = [
      handle.db.update(auditEvents).set({ reason: "rewritten" }),
      handle.db.delete(auditEvents),
      handle.db.execute(sql`truncate audit_events`),
    ];
    for (const change of changes) {
      await expect(change).rejects.toMatchObject({
        cause: {
          message: expect.stringMatching(/^audit_events is append-only: (UPDATE|DELETE|TRUNCATE) refused$/),
        },
      });
    }
  });
});
