import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import { readChainOfSale } from "@/lib/db/queries/audit-events";
import { eraseExpiredBatch } from "@/lib/db/queries/customer-data";
import { findSaleEvidence, recordSaleEvidence } from "@/lib/db/queries/sale-evidence";
import { findSale } from "@/lib/db/queries/sales";
import { findApiSale, findApiSales } from "@/lib/db/queries/api-sales";
import { apiSale, type ApiSale } from "@/lib/api/sale-representation";
import { saleEventPayload } from "@/lib/webhooks/payload";
import { exportCsvBatch } from "@/lib/db/queries/sales-history";
import { sales } from "@/lib/db/schema";
import { validSale } from "@/sandbox/test-support";
import { runTool } from "@/test/cli";
import { testDatabases } from "@/test/databases";
import { anAgent, SHOWN_SCRIPT } from "@/test/offer-script";
import { buildDisputePack, signDisputePack, type SignedDisputePack } from "./dispute-pack";
import { buildEvidence } from "./evidence";
import { checkSaleEvidence, describeIntegrityProblem, verifyDisputePack } from "./evidence-integrity";
import { evidenceSigningKey } from "./evidence-key";
import { formatProtocol, newProtocol } from "./protocol";
import type { PartnerSaleRequestBody } from "@/lib/provider/types";

const AUTH_SECRET = "a-test-secret-for-dispute-packs-0123456789abcdef";
const SCRIPT = SHOWN_SCRIPT;

describe.each(testDatabases)("a scripted sale's evidence and its dispute pack on $name", ({ open }) => {
  let handle: DatabaseHandle & { databaseUrl?: string; dataDir: string };
  let env: Record<string, string>;
  let agentId: string;

  /** What only the schema's owner can do: change a table behind its guard trigger's back. */
  const tamper = async (table: string, trigger: string, statement: string) => {
    await handle.db.execute(sql.raw(`alter table ${table} disable trigger ${trigger}`));
    try {
      await handle.db.execute(sql.raw(statement));
    } finally {
      await handle.db.execute(sql.raw(`alter table ${table} enable trigger ${trigger}`));
    }
  };

  /** A settled scripted sale, its evidence recorded as the form's sale would be; its stored protocol. */
  async function scriptedSale(recordingId: string | null = "rec-2026-0042") {
    const submissionId = randomUUID();
    const protocol = newProtocol();
    const now = new Date();
    await handle.db.insert(sales).values({
      submissionId,
      protocol,
      agentId,
      status: "accepted",
      request: validSale({
        planId: "6f1c2a9e-0b7d-4c3e-9a51-2d8f4b6e7c10",
      }) as unknown as PartnerSaleRequestBody,
      upstreamStatus: 200,
      upstreamMessage: "Venda de parceiro registrada.",
      completedAt: now,
    });
    const built = buildEvidence(
      SCRIPT,
      {
        scriptHash: SCRIPT.hash,
        confirmedAt: { valor: new Date(now.getTime() - 60_000).toISOString(), dados: now.toISOString() },
        recordingId,
      },
      { submissionId, agentId, door: "password" },
      now,
    );
    if (!built.ok) throw new Error(built.problem.code);
    await recordSaleEvidence(handle.db, {
      record: built.record,
      recordingId: built.recordingId,
      actor: { actor: `agent:${agentId}`, agentId, door: "password" },
      protocol,
    });
    return { submissionId, protocol };
  }

  async function packOf(submissionId: string): Promise<SignedDisputePack> {
    const sale = (await findSale(handle.db, submissionId))!;
    const pack = buildDisputePack({
      sale,
      planName: "Plano Completo",
      evidence: (await findSaleEvidence(handle.db, submissionId))!,
      auditTrail: await readChainOfSale(handle.db, sale.protocol),
      now: new Date(),
    });
    const key = await evidenceSigningKey(AUTH_SECRET);
    return signDisputePack(pack, { privateKey: key.privateKey, kid: key.publicJwk.kid });
  }

  const keys = async () => [(await evidenceSigningKey(AUTH_SECRET)).publicJwk];
  const describeAll = (problems: Parameters<typeof describeIntegrityProblem>[0][], protocol: string) =>
    problems.map((problem) => describeIntegrityProblem(problem, formatProtocol(protocol)));
  const cliVerify = (pack: SignedDisputePack, ...args: string[]) => {
    const path = join(handle.dataDir, `pack-${randomUUID()}.json`);
    writeFileSync(path, JSON.stringify(pack, null, 2));
    return runTool("evidence", ["verify", path, ...args], env);
  };

  beforeAll(async () => {
    handle = await open();
    env = { DATA_DIR: handle.dataDir, DATABASE_URL: handle.databaseUrl ?? "", AUTH_SECRET };
    agentId = await anAgent(handle.db);
  });
  afterAll(() => handle.close());

  it("holds a pack that verifies, offline and against the database, and says so on the command line", async () => {
    const { submissionId, protocol } = await scriptedSale();
    const signed = await packOf(submissionId);
    expect(signed.pack.evidence).toMatchObject({ recordingId: "rec-2026-0042", scriptVersion: "2026-11" });
    expect(signed.pack.sale.protocol).toBe(formatProtocol(protocol));
    expect(signed.pack.auditTrail.map((row) => row.action)).toEqual(["sale.evidence_recorded"]);
    expect(signed.signature.split(".")).toHaveLength(3);
    expect((await verifyDisputePack(signed, await keys(), null)).problems).toEqual([]);
    expect((await verifyDisputePack(signed, await keys(), handle.db)).problems).toEqual([]);
    expect(
      await checkSaleEvidence(handle.db, protocol, (await findSaleEvidence(handle.db, submissionId))!),
    ).toEqual([]);
    const result = await cliVerify(signed);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^Dispute pack of sale ${formatProtocol(protocol)} verified: signature, evidence hash [0-9a-f]{64} recorded by audit row #\\d+, 1 trail rows; the database holds them unchanged\\.\\n$`,
      ),
    );
  });

  it("refuses a pack changed after it was signed, or signed with another key", async () => {
    const { submissionId, protocol } = await scriptedSale();
    const signed = await packOf(submissionId);
    const changed = structuredClone(signed);
    changed.pack.evidence.confirmations[0]!.confirmedAt = new Date(0).toISOString();
    expect(describeAll((await verifyDisputePack(changed, await keys(), null)).problems, protocol)).toEqual([
      "the pack was changed after it was signed: its signature covers other content",
      "the pack's evidence does not hash to the evidenceHash it states: it was changed",
      `no sale.evidence_recorded row of the audit trail carries the evidence's hash of sale ${formatProtocol(protocol)}`,
    ]);
    const other = [(await evidenceSigningKey(`${AUTH_SECRET}-other`)).publicJwk];
    expect((await verifyDisputePack(signed, other, null)).problems).toEqual([
      { code: "signature", detail: "unknown_key" },
    ]);
  });

  it("names the evidence row's altered columns once it was changed in the database", async () => {
    const { submissionId, protocol } = await scriptedSale();
    const signed = await packOf(submissionId);
    await tamper(
      "sale_evidence",
      "sale_evidence_guard",
      `update sale_evidence set confirmations = '[]', recording_id_digest = null where submission_id = '${submissionId}'`,
    );
    const message = `the evidence row of sale ${formatProtocol(protocol)} was altered: confirmations, recording_id_digest differ from what the audit trail recorded`;
    expect(
      describeAll((await verifyDisputePack(signed, await keys(), handle.db)).problems, protocol),
    ).toEqual([message]);
    const page = await checkSaleEvidence(
      handle.db,
      protocol,
      (await findSaleEvidence(handle.db, submissionId))!,
    );
    expect(page).toEqual([{ code: "evidence_altered", fields: [] }]);
    const result = await cliVerify(signed);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`- ${message}`);
  });

  it("keeps the evidence through erasure: the recording id goes, its digest stays, it still verifies", async () => {
    const { submissionId, protocol } = await scriptedSale("gravacao/2026-11-29#7");
    const before = (await findSaleEvidence(handle.db, submissionId))!;
    await eraseExpiredBatch(handle.db, { createdBefore: new Date(Date.now() + 60_000), limit: 1_000 });
    const after = (await findSaleEvidence(handle.db, submissionId))!;
    expect(after.recordingId).toBeNull();
    expect(after.recordingIdDigest).toBe(before.recordingIdDigest);
    expect({ ...after, recordingId: before.recordingId }).toEqual(before);
    expect(await checkSaleEvidence(handle.db, protocol, after)).toEqual([]);
    const signed = await packOf(submissionId);
    expect(signed.pack.evidence.recordingId).toBeNull();
    expect(signed.pack.customer.erased).toMatchObject({ reason: "retention" });
    expect(signed.pack.customer.data.customerName).toBe("");
    expect((await verifyDisputePack(signed, await keys(), handle.db)).problems).toEqual([]);
  });

  it("exports the evidence's columns with the sale, the recording id until erasure", async () => {
    const { submissionId, protocol } = await scriptedSale("-rec-7");
    const exported = await exportCsvBatch(
      handle.db,
      { timeZone: "America/Sao_Paulo", agentId },
      { limit: 1_000, names: { plans: [] } },
    );
    const line = new TextDecoder()
      .decode(exported.csv)
      .split("\n")
      .find((row) => row.includes(formatProtocol(protocol)))!;
    const evidence = (await findSaleEvidence(handle.db, submissionId))!;
    expect(line.split(";").slice(-4)).toEqual([
      "2026-11",
      SCRIPT.hash,
      expect.stringMatching(
        /^valor \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}, dados \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/,
      ),
      "'-rec-7",
    ]);
    expect(evidence.recordingId).toBe("-rec-7");
  });

  it("gives the API and the webhooks the evidence, the recording id only where customer data goes", async () => {
    const { submissionId } = await scriptedSale("rec-api-1");
    const row = (await findApiSale(handle.db, submissionId))!;
    const confirmations = [
      { id: "valor", confirmedAt: expect.any(String) as string },
      { id: "dados", confirmedAt: expect.any(String) as string },
    ];
    const event = { type: "sale.accepted" as const, createdAt: new Date(), snapshot: { status: "accepted" } };
    for (const withCustomer of [false, true]) {
      const sale = apiSale(row, {
        seller: { agent: null, integration: null },
        settledBy: null,
        withCustomer,
      });
      const shown = {
        scriptVersion: "2026-11",
        scriptHash: SCRIPT.hash,
        confirmations,
        ...(withCustomer ? { recordingId: "rec-api-1" } : {}),
      };
      expect(sale.evidence).toEqual(shown);
      expect((saleEventPayload(event, row, withCustomer).data as ApiSale).evidence).toEqual(shown);
    }
    const other = (await findApiSales(handle.db, [submissionId, randomUUID()])).get(submissionId)!;
    expect(other.evidence?.recordingId).toBe("rec-api-1");
  });

  it("names the audit trail's row that was changed", async () => {
    const { submissionId, protocol } = await scriptedSale();
    const signed = await packOf(submissionId);
    const seq = signed.pack.auditTrail[0]!.seq;
    await tamper(
      "audit_events",
      "audit_events_no_change",
      `update audit_events set details = details || '{"evidenceHash": "${"0".repeat(64)}"}' where seq = ${seq}`,
    );
    expect(
      describeAll((await verifyDisputePack(signed, await keys(), handle.db)).problems, protocol),
    ).toEqual([`audit row #${seq} (sale.evidence_recorded) differs from the pack's in the audit trail`]);
    const evidence = (await findSaleEvidence(handle.db, submissionId))!;
    expect(await checkSaleEvidence(handle.db, protocol, evidence)).toEqual([
      { code: "audit_row_edited", seq, action: "sale.evidence_recorded" },
      { code: "evidence_altered", fields: [] },
    ]);
  });
});
