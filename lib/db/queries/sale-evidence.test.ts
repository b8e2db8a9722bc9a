import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainVerifier } from "@/lib/audit/chain";
import type { DatabaseHandle } from "@/lib/db/connection";
import { readChain, readChainOfSale } from "@/lib/db/queries/audit-events";
import { eraseExpiredBatch } from "@/lib/db/queries/customer-data";
import { saleEvidence, sales } from "@/lib/db/schema";
import type { Stats } from "@/sandbox/state";
import { createProviderClient, type ProviderClient } from "@/lib/provider";
import { buildEvidence, evidenceHash } from "@/lib/sales/evidence";
import { sha256Hex } from "@/lib/sales/offer-script";
import { submitSale } from "@/lib/sales/submit-sale";
import type { ValidSale } from "@/lib/validation/sale";
import {
  clientConfigFor,
  control,
  startSandbox,
  validSale,
  type RunningSandbox,
} from "@/sandbox/test-support";
import { testDatabases } from "@/test/databases";
import { anAgent, SHOWN_SCRIPT } from "@/test/offer-script";
import { holdAuditTrail } from "./audit-events";
import { findSaleEvidence, recordSaleEvidence } from "./sale-evidence";
import { findSaleRow } from "./sales";

const silent = { info() {}, warn() {}, error() {} };
const script = SHOWN_SCRIPT;

describe.each(testDatabases)("a scripted sale's evidence on $name", ({ open }) => {
  let handle: DatabaseHandle;
  let sandbox: RunningSandbox;
  let api: ProviderClient;
  let agentId: string;

  beforeAll(async () => {
    handle = await open();
    sandbox = await startSandbox();
    api = createProviderClient(clientConfigFor(sandbox.url, { timeoutMs: 5_000 }), { log: silent });
    agentId = await anAgent(handle.db);
  });
  afterAll(async () => {
    await sandbox.close();
    await handle.close();
  });

  /** A closed port: a sale through it fails before anything is sent. */
  let unreachable: ProviderClient;
  beforeAll(async () => {
    const closed = await startSandbox();
    unreachable = createProviderClient(clientConfigFor(closed.url, { timeoutMs: 5_000 }), { log: silent });
    await closed.close();
  });

  /**
   * A form sale of the scripted plan, both required confirmations (and `also`) ticked `tickedAgoMs` ago (a minute),
   * with a recording id; or, with `evidence: false`, the same sale as if its plan had no script.
   */
  const submit = async (
    submissionId: string,
    options: {
      tickedAgoMs?: number;
      provider?: ProviderClient;
      evidence?: boolean;
      also?: string[];
    } = {},
  ) => {
    const now = new Date();
    const tickedAt = new Date(now.getTime() - (options.tickedAgoMs ?? 60_000)).toISOString();
    const built = buildEvidence(
      script,
      {
        scriptHash: script.hash,
        confirmedAt: {
          valor: tickedAt,
          dados: tickedAt,
          ...Object.fromEntries((options.also ?? []).map((id) => [id, tickedAt])),
        },
        recordingId: "rec-42",
      },
      { submissionId, agentId, door: "password" },
      now,
    );
    if (!built.ok) throw new Error("the test's evidence is refused");
    const submission = await submitSale(
      { db: handle.db, provider: options.provider ?? api, partnerSource: "Parceiro" },
      {
        agentId,
        submissionId,
        sale: validSale() as unknown as ValidSale,
        evidence:
          options.evidence === false
            ? undefined
            : {
                record: built.record,
                recordingId: built.recordingId,
                actor: { actor: `agent:${agentId}`, agentId, door: "password" },
              },
      },
    );
    return { submission, record: built.record };
  };
  const sell = async (submissionId = randomUUID()) => {
    const { submission, record } = await submit(submissionId);
    if (submission.kind !== "recorded") throw new Error("not recorded");
    return { submissionId, protocol: submission.sale.protocol, record };
  };
  const evidenceRows = (protocol: string) =>
    readChainOfSale(handle.db, protocol).then((rows) =>
      rows.filter((row) => row.action === "sale.evidence_recorded"),
    );
  const chainHolds = async () => {
    const verifier = new ChainVerifier();
    verifier.check(await readChain(handle.db, 0, 100_000));
    return verifier.broken;
  };

  it("is recorded with the sale, its hash in the audit trail's chain", async () => {
    const { submissionId, protocol, record } = await sell();
    const row = await findSaleEvidence(handle.db, submissionId);
    expect(row).toMatchObject({
      scriptVersion: "2026-11",
      scriptHash: script.hash,
      scriptText: script.text,
      recordingId: "rec-42",
      recordingIdDigest: sha256Hex("rec-42"),
      door: "password",
      agentId,
    });
    // What the database holds hashes to what the trail recorded.
    expect(row!.evidenceHash).toBe(evidenceHash(row!));
    expect(row!.evidenceHash).toBe(evidenceHash(record));
    const [audit] = await evidenceRows(protocol);
    expect(JSON.parse(audit!.details)).toEqual({
      submissionId,
      scriptVersion: "2026-11",
      scriptHash: script.hash,
      evidenceHash: row!.evidenceHash,
    });
    expect(audit!.actor).toBe(`agent:${agentId}`);
    expect(await chainHolds()).toBeNull();
  });

  it("is recorded once when the same submission comes again (its sale already sent)", async () => {
    const { submissionId, protocol } = await sell();
    await sell(submissionId);
    expect(await evidenceRows(protocol)).toHaveLength(1);
    expect(
      await handle.db.select().from(saleEvidence).where(eq(saleEvidence.submissionId, submissionId)),
    ).toHaveLength(1);
  });

  it("keeps its record when a failed sale goes again the same; other ticks are not claimed, nothing sent", async () => {
    const submissionId = randomUUID();
    const failed = await submit(submissionId, { tickedAgoMs: 120_000, provider: unreachable });
    expect(failed.submission).toMatchObject({ kind: "recorded", sale: { status: "failed" } });
    const stats = async () => (await control<Stats>(sandbox.url, "GET", "stats")).body.saleRequests;
    const before = await stats();

    // The optional confirmation ticked too: another record than the one kept; the claim is rolled back.
    const other = await submit(submissionId, { also: ["ofertas"] });
    expect(other.submission).toEqual({ kind: "evidence-changed" });
    expect(await stats()).toBe(before);

    // The same script, ticks and recording (ticked again a minute ago): sent, under the record first written.
    const { submission } = await submit(submissionId);
    expect(submission).toMatchObject({
      kind: "recorded",
      replay: false,
      sale: { status: "accepted", attempts: 2 },
    });
    expect(await stats()).toBe(before + 1);
    if (submission.kind !== "recorded") return;
    const row = await findSaleEvidence(handle.db, submissionId);
    expect(row!.evidenceHash).toBe(evidenceHash(failed.record));
    expect(await evidenceRows(submission.sale.protocol)).toHaveLength(1);
    expect(await chainHolds()).toBeNull();
  });

  it("keeps a failed scripted sale from going again without evidence (another plan): nothing sent", async () => {
    const submissionId = randomUUID();
    const first = await submit(submissionId, { provider: unreachable });
    expect(first.submission).toMatchObject({ kind: "recorded", sale: { status: "failed" } });
    const before = (await control<Stats>(sandbox.url, "GET", "stats")).body.saleRequests;

    const again = await submit(submissionId, { evidence: false });
    expect(again.submission).toEqual({ kind: "evidence-changed" });
    expect((await control<Stats>(sandbox.url, "GET", "stats")).body.saleRequests).toBe(before);
    expect(await findSaleEvidence(handle.db, submissionId)).toMatchObject({
      evidenceHash: evidenceHash(first.record),
    });
  });

  it.each([
    [
      "retention erased it",
      (submissionId: string) =>
        handle.db
          .execute(
            sql`update sales set created_at = now() - interval '3 years' where submission_id = ${submissionId}`,
          )
          .then(() =>
            eraseExpiredBatch(handle.db, { createdBefore: new Date(Date.now() - 86_400_000), limit: 1_000 }),
          ),
    ],
    [
      "its customer asked for erasure",
      (submissionId: string) =>
        handle.db
          .update(sales)
          .set({ erasureRequestedAt: new Date() })
          .where(eq(sales.submissionId, submissionId)),
    ],
  ])("answers a failed scripted sale sent again without evidence as recorded once %s", async (_, erase) => {
    const submissionId = randomUUID();
    const first = await submit(submissionId, { provider: unreachable });
    expect(first.submission).toMatchObject({
      kind: "recorded",
      sale: { status: "failed", hasEvidence: true },
    });
    await erase(submissionId);
    const before = (await control<Stats>(sandbox.url, "GET", "stats")).body.saleRequests;

    const again = await submit(submissionId, { evidence: false });
    expect(again.submission).toMatchObject({ kind: "recorded", replay: true, sale: { status: "failed" } });
    expect((await control<Stats>(sandbox.url, "GET", "stats")).body.saleRequests).toBe(before);
  });

  it("flags its sale whoever writes it, so a failed sale is not sent again without it", async () => {
    // An instance of the previous version during an upgrade claims without the flag and writes the evidence.
    const submissionId = randomUUID();
    const { record } = await submit(submissionId, { provider: unreachable, evidence: false });
    expect((await findSaleRow(handle.db, submissionId))?.hasEvidence).toBe(false);
    await handle.db.transaction(async (tx) => {
      await holdAuditTrail(tx);
      const row = await findSaleRow(tx, submissionId);
      await recordSaleEvidence(tx, {
        record,
        recordingId: "rec-42",
        actor: { actor: `agent:${agentId}`, agentId, door: "password" },
        protocol: row!.protocol,
      });
    });
    expect((await findSaleRow(handle.db, submissionId))?.hasEvidence).toBe(true);
    const before = (await control<Stats>(sandbox.url, "GET", "stats")).body.saleRequests;

    expect((await submit(submissionId, { evidence: false })).submission).toEqual({
      kind: "evidence-changed",
    });
    expect((await control<Stats>(sandbox.url, "GET", "stats")).body.saleRequests).toBe(before);
  });

  it("cannot be changed or deleted, nor its recording id emptied before its sale is erased", async () => {
    const { submissionId } = await sell();
    await expect(
      handle.db
        .update(saleEvidence)
        .set({ scriptText: "outro" })
        .where(eq(saleEvidence.submissionId, submissionId)),
    ).rejects.toThrow();
    await expect(
      handle.db.delete(saleEvidence).where(eq(saleEvidence.submissionId, submissionId)),
    ).rejects.toThrow();
    await expect(
      handle.db
        .update(saleEvidence)
        .set({ recordingId: null, door: "cli" })
        .where(eq(saleEvidence.submissionId, submissionId)),
    ).rejects.toThrow();
    await expect(
      handle.db
        .update(saleEvidence)
        .set({ recordingId: null })
        .where(eq(saleEvidence.submissionId, submissionId)),
    ).rejects.toThrow();
    expect((await findSaleEvidence(handle.db, submissionId))?.recordingId).toBe("rec-42");
  });

  it("keeps what proves the sale through retention's erasure, and loses the recording id", async () => {
    const { submissionId } = await sell();
    await handle.db.execute(
      sql`update sales set created_at = now() - interval '3 years' where submission_id = ${submissionId}`,
    );
    await eraseExpiredBatch(handle.db, { createdBefore: new Date(Date.now() - 86_400_000), limit: 1_000 });
    const row = await findSaleEvidence(handle.db, submissionId);
    expect(row).toMatchObject({
      recordingId: null,
      recordingIdDigest: sha256Hex("rec-42"),
      scriptText: script.text,
    });
    expect(row!.confirmations.map((item) => item.id)).toEqual(["valor", "dados"]);
    // The digest stands for the id in the hash: the evidence still matches its chain row.
    expect(evidenceHash(row!)).toBe(row!.evidenceHash);
    expect(await chainHolds()).toBeNull();
  });
});
