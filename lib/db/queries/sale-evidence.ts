import "server-only";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { Database } from "../connection";
import { saleEvidence, type SaleEvidence } from "../schema";
import { recordAuditEvent, type AuditActor } from "./audit-events";
import { evidenceHash, type EvidenceRecord } from "@/lib/sales/evidence";

export interface SaleEvidenceToRecord {
  record: EvidenceRecord;
  recordingId: string | null;
  actor: AuditActor;
}

/**
 * A failed sale sent again (nothing had gone out) with evidence other than its record's: another script, other
 * confirmations or another recording. The record is written once, so this attempt is not claimed.
 */
export class EvidenceChangedError extends Error {
  constructor(readonly submissionId: string) {
    super("A failed sale was sent again with other evidence than its record's.");
    this.name = "EvidenceChangedError";
  }
}

/** What a record says was offered and accepted: its ticks' times aside, which a re-send of the same sale moves. */
const substance = (row: Pick<EvidenceRecord, "scriptHash" | "confirmations" | "recordingIdDigest">) =>
  JSON.stringify([row.scriptHash, row.confirmations.map((item) => item.id).sort(), row.recordingIdDigest]);

/**
 * A scripted sale's evidence and its row in the audit trail (`sale.evidence_recorded`, carrying the record's hash
 * into the chain), in the caller's transaction: the one that claims the sale, before anything is sent, which holds
 * the trail (holdAuditTrail) from its start. Written once: a failed sale sent again with the same script, ticks and
 * recording keeps its record (the customer said yes when first ticked); with other ones it raises
 * EvidenceChangedError, which rolls the claim back.
 */
export async function recordSaleEvidence(
  tx: Database,
  input: SaleEvidenceToRecord & { protocol: string },
): Promise<void> {
  const { record } = input;
  const hash = evidenceHash(record);
  const [inserted] = await tx
    .insert(saleEvidence)
    .values({ ...record, recordingId: input.recordingId, evidenceHash: hash })
    .onConflictDoNothing({ target: saleEvidence.submissionId })
    .returning({ submissionId: saleEvidence.submissionId });
  if (!inserted) {
    const recorded = await findSaleEvidence(tx, record.submissionId);
    if (!recorded || substance(recorded) !== substance(record)) {
      throw new EvidenceChangedError(record.submissionId);
    }
    return;
  }
  await recordAuditEvent(tx, {
    ...input.actor,
    action: "sale.evidence_recorded",
    protocol: input.protocol,
    details: {
      submissionId: record.submissionId,
      scriptVersion: record.scriptVersion,
      scriptHash: record.scriptHash,
      evidenceHash: hash,
    },
  });
}

export async function findSaleEvidence(
  db: Database,
  submissionId: string,
): Promise<SaleEvidence | undefined> {
  const [row] = await db
    .select()
    .from(saleEvidence)
    .where(eq(saleEvidence.submissionId, submissionId))
    .limit(1);
  return row;
}

/** Several sales' evidence at once (a page of the history, the export, the API), by submission id. */
export async function findSalesEvidence(
  db: Database,
  submissionIds: readonly string[],
): Promise<Map<string, SaleEvidence>> {
  if (submissionIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(saleEvidence)
    .where(inArray(saleEvidence.submissionId, [...submissionIds]));
  return new Map(rows.map((row) => [row.submissionId, row]));
}

/** Bound parameters per statement: PostgreSQL's protocol takes at most 65,535. */
const IDS_PER_STATEMENT = 10_000;

/** Erasure's part (lib/db/queries/customer-data.ts): the recording ids go, their digests and the rest stay. */
export async function eraseEvidenceRecordingIds(
  db: Database,
  submissionIds: readonly string[],
): Promise<void> {
  for (let start = 0; start < submissionIds.length; start += IDS_PER_STATEMENT) {
    await db
      .update(saleEvidence)
      .set({ recordingId: null })
      .where(
        and(
          inArray(saleEvidence.submissionId, submissionIds.slice(start, start + IDS_PER_STATEMENT)),
          isNotNull(saleEvidence.recordingId),
        ),
      );
  }
}
