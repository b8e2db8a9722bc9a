import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { feedCursor, readFeedStart } from "@/lib/api/cursors";
import type { ApiCaller } from "@/lib/dal/api-caller";
import { apiSaleFor } from "@/lib/dal/api-sales";
import type { DatabaseHandle } from "@/lib/db/connection";
import { insertAgent } from "@/lib/db/queries/agents";
import { claimSubmission, recordOutcome } from "@/lib/db/queries/sales";
import { integrations } from "@/lib/db/schema";
import { createProviderClient } from "@/lib/provider";
import { submitSale } from "@/lib/sales/submit-sale";
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
import { findApiSale, saleChanges, searchSales, type ChangePoint } from "./api-sales";

const silent = { info() {}, warn() {}, error() {} };
const sale = (overrides: Record<string, unknown> = {}) => validSale(overrides) as unknown as ValidSale;
const START: ChangePoint = readFeedStart("1970-01-01T00:00:00Z")!;

function callerWith(...scopes: string[]): ApiCaller {
  return {
    integrationId: randomUUID(),
    integration: "crm",
    keyId: randomUUID(),
    prefix: "psk_ABCDEFGH",
    scopes: new Set(scopes),
    door: "api-key:crm",
  };
}

describe.each(testDatabases)("/api/v1's sales on $name", ({ open }) => {
  let handle: DatabaseHandle;
  let sandbox: RunningSandbox;
  let agentId: string;
  let crm: string;
  let dialer: string;

  const submit = (
    seller: { agentId: string | null; integrationId: string | null },
    submissionId: string,
    input: ValidSale,
  ) =>
    submitSale(
      {
        db: handle.db,
        provider: createProviderClient(clientConfigFor(sandbox.url), { log: silent }),
        partnerSource: "Parceiro",
      },
      { ...seller, submissionId, sale: input },
    );

  beforeAll(async () => {
    handle = await open();
    sandbox = await startSandbox();
    agentId = (
      await insertAgent(handle.db, {
        email: "ana@example.com",
        name: "Ana Souza",
        role: "agent",
        passwordHash: null,
      })
    ).id;
    const made = await handle.db
      .insert(integrations)
      .values([{ name: "crm" }, { name: "discador" }])
      .returning({ id: integrations.id });
    [crm, dialer] = made.map((integration) => integration.id) as [string, string];
  });
  afterAll(async () => {
    await sandbox.close();
    await handle.close();
  });

  it("records a key's sale as its integration's, alone or on an agent's behalf, and shows both sellers", async () => {
    const alone = randomUUID();
    const onBehalf = randomUUID();
    await submit({ agentId: null, integrationId: crm }, alone, sale());
    await submit({ agentId, integrationId: crm }, onBehalf, sale());
    const caller = callerWith("sales:read");
    expect(apiSaleFor(caller, (await findApiSale(handle.db, alone))!).seller).toEqual({
      agent: null,
      integration: "crm",
    });
    expect(apiSaleFor(caller, (await findApiSale(handle.db, onBehalf))!).seller).toEqual({
      agent: { id: agentId, name: "Ana Souza" },
      integration: "crm",
    });
  });

  it("replays an Idempotency-Key for its own integration only, without a second call to the provider", async () => {
    await control(sandbox.url, "POST", "reset");
    const submissionId = randomUUID();
    const input = sale();
    const first = await submit({ agentId: null, integrationId: crm }, submissionId, input);
    expect(first).toMatchObject({ kind: "recorded", replay: false, sale: { status: "accepted" } });
    const again = await submit({ agentId: null, integrationId: crm }, submissionId, input);
    expect(again).toMatchObject({ kind: "recorded", replay: true, sale: { status: "accepted" } });
    // The same key from another integration, from the agent in a session, or on the agent's behalf: not theirs.
    expect(await submit({ agentId: null, integrationId: dialer }, submissionId, input)).toEqual({
      kind: "not-yours",
    });
    expect(await submit({ agentId, integrationId: null }, submissionId, input)).toEqual({
      kind: "not-yours",
    });
    expect(await submit({ agentId, integrationId: crm }, submissionId, input)).toEqual({ kind: "not-yours" });
    expect((await control<Stats>(sandbox.url, "GET", "stats")).body.saleRequests).toBe(1);
  });

  it("gives customer data and the provider's words only to a key with sales:read-customer", async () => {
    const submissionId = randomUUID();
    const input = sale({ externalId: "CRM-42" });
    await submit({ agentId: null, integrationId: crm }, submissionId, input);
    const row = (await findApiSale(handle.db, submissionId))!;
    const least = apiSaleFor(callerWith("sales:read"), row);
    expect(least).not.toHaveProperty("customer");
    expect(JSON.stringify(least)).not.toContain(input.customerDocument);
    expect(JSON.stringify(least)).not.toContain(input.customerEmail);
    expect(least).toMatchObject({ externalId: "CRM-42", status: "accepted", provider: { message: null } });
    const full = apiSaleFor(callerWith("sales:read", "sales:read-customer"), row);
    expect(full.customer).toMatchObject({ document: input.customerDocument, email: input.customerEmail });
    expect(full.provider.message).toBe("Venda de parceiro registrada.");
  });

  it("finds sales by protocol, externalId, status and period, newest first, page after page", async () => {
    const externalId = `CRM-${randomUUID().slice(0, 8)}`;
    const made = [];
    for (let index = 0; index < 5; index += 1) {
      const claim = await claimSubmission(handle.db, {
        submissionId: randomUUID(),
        agentId: null,
        integrationId: crm,
        request: { ...sale({ externalId }), partnerSource: "Parceiro" },
      });
      made.push(claim.sale);
    }
    const byExternalId = [];
    let after: string | undefined;
    for (;;) {
      const rows = await searchSales(handle.db, { externalId, limit: 2, after });
      byExternalId.push(...rows.slice(0, 2).map((row) => row.submissionId));
      if (rows.length <= 2) break;
      after = rows[1]!.submissionId;
    }
    expect(byExternalId).toEqual(made.map((row) => row.submissionId).reverse());
    const [byProtocol] = await searchSales(handle.db, { protocol: made[2]!.protocol, limit: 10 });
    expect(byProtocol?.submissionId).toBe(made[2]!.submissionId);
    const pending = await searchSales(handle.db, { externalId, status: "pending", limit: 10 });
    expect(pending).toHaveLength(5);
    expect(await searchSales(handle.db, { externalId, status: "accepted", limit: 10 })).toHaveLength(0);
    const later = await searchSales(handle.db, {
      externalId,
      createdFrom: new Date(made[0]!.createdAt.getTime() + 3_600_000),
      limit: 10,
    });
    expect(later).toHaveLength(0);
  });

  it("hands every change to the feed exactly once across pages while sales are being made", async () => {
    const horizonMs = 1_000;
    const total = 60;
    const finals = new Map<string, number>();
    // Everything the tests above made is history: the feed is followed from its end now.
    const { cursor: start } = await feedAt(START);
    const making = (async () => {
      // Four sellers at once: each sale is claimed (pending) and then settled by the provider's answer.
      await Promise.all(
        Array.from({ length: 4 }, async (_, seller) => {
          for (let index = seller; index < total; index += 4) {
            const submissionId = randomUUID();
            await claimSubmission(handle.db, {
              submissionId,
              agentId: seller % 2 ? agentId : null,
              integrationId: seller % 2 ? null : crm,
              request: { ...sale(), partnerSource: "Parceiro" },
            });
            const recorded = await recordOutcome(
              handle.db,
              submissionId,
              index % 3
                ? { status: "accepted", httpStatus: 200, message: "ok" }
                : { status: "rejected", httpStatus: 422, message: "no", fields: [] },
            );
            finals.set(submissionId, recorded.updatedAt.getTime());
          }
        }),
      );
    })();

    const seen: { submissionId: string; micros: bigint; status: string }[] = [];
    let cursor = start;
    let done = false;
    let failed: unknown;
    making.then(
      () => (done = true),
      (error: unknown) => (failed = error),
    );
    // Page after page of 7 until every sale's last change has come through (bounded: no wait is asserted on).
    for (let round = 0; round < 400; round += 1) {
      const rows = await saleChanges(handle.db, { after: readFeedStart(cursor)!, limit: 7, horizonMs });
      for (const row of rows) {
        seen.push({ submissionId: row.submissionId, micros: BigInt(row.changedMicros), status: row.status });
      }
      if (rows.length > 0)
        cursor = feedCursor({ micros: rows.at(-1)!.changedMicros, submissionId: rows.at(-1)!.submissionId });
      const finished = [...finals.keys()].every((id) =>
        seen.some((change) => change.submissionId === id && change.status !== "pending"),
      );
      if (failed) throw failed;
      if (done && finals.size === total && finished && rows.length === 0) break;
      if (rows.length < 7) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await making;

    // In order, and no change twice: a sale shows once per change read (pending, then its outcome), never again.
    const keys = seen.map((change) => `${change.submissionId}@${change.micros}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (let index = 1; index < seen.length; index += 1) {
      const [before, after] = [seen[index - 1]!, seen[index]!];
      expect(
        before.micros < after.micros ||
          (before.micros === after.micros && before.submissionId < after.submissionId),
      ).toBe(true);
    }
    expect(finals.size).toBe(total);
    // Every sale made reached the feed with its outcome.
    for (const submissionId of finals.keys()) {
      expect(
        seen.filter((change) => change.submissionId === submissionId && change.status !== "pending"),
      ).toHaveLength(1);
    }
  }, 60_000);

  /** The feed's cursor at its end now (everything earlier is history for the test above). */
  async function feedAt(from: ChangePoint): Promise<{ cursor: string }> {
    let after = from;
    for (;;) {
      const rows = await saleChanges(handle.db, { after, limit: 100, horizonMs: 0 });
      if (rows.length === 0) return { cursor: feedCursor(after) };
      after = { micros: rows.at(-1)!.changedMicros, submissionId: rows.at(-1)!.submissionId };
    }
  }
});
