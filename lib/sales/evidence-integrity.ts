import "server-only";
import { chainHash, GENESIS_HASH } from "@/lib/audit/chain";
import type { Database } from "@/lib/db/connection";
import { readChain, readChainOfSale } from "@/lib/db/queries/audit-events";
import { findSaleEvidence } from "@/lib/db/queries/sale-evidence";
import type { SaleEvidence } from "@/lib/db/schema";
import { checkPackSignature, evidenceRecordOf, type PackAuditRow, type PackEvidence } from "./dispute-pack";
import { evidenceContent, evidenceHash } from "./evidence";
import { sha256Hex } from "./offer-script";

/** What does not hold, in the order the checks meet it; `fields` are the evidence table's column names. */
export type IntegrityProblem =
  | { code: "signature"; detail: "unknown_key" | "invalid" | "other_content" }
  /** The pack's evidence does not hash to the evidenceHash it states. */
  | { code: "pack_evidence_hash" }
  /** No sale.evidence_recorded row (of the pack, or of the trail) carries the evidence's hash. */
  | { code: "not_recorded" }
  /** The row's content no longer matches its hash. */
  | { code: "audit_row_edited"; seq: number; action: string }
  /** The row's hash is its own, but it does not follow the row before it. */
  | { code: "audit_row_unlinked"; seq: number; action: string }
  /** The pack's row is not in the database as it was (gone, or another row there). */
  | { code: "audit_row_changed"; seq: number; action: string; gone: boolean }
  | { code: "evidence_missing" }
  /** The evidence row is not what the trail recorded; `fields` empty when the trail alone cannot say which. */
  | { code: "evidence_altered"; fields: string[] };

const COLUMNS = {
  submissionId: "submission_id",
  scriptVersion: "script_version",
  scriptHash: "script_hash",
  scriptText: "script_text",
  confirmations: "confirmations",
  recordingIdDigest: "recording_id_digest",
  agentId: "agent_id",
  door: "door",
  recordedAt: "recorded_at",
} as const;

/** Each field the evidence's hash covers, as that hash sees it. */
function coveredValues(record: SaleEvidence | PackEvidence): Record<string, string> {
  const content = JSON.parse(evidenceContent(evidenceRecordOf(record))) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(content).map(([key, value]) => [key, JSON.stringify(value)]));
}

/** The columns where `row` differs from `recorded` (the evidence the trail's hash vouches for). */
function differingColumns(row: SaleEvidence, recorded: PackEvidence): string[] {
  const now = coveredValues(row);
  const then = coveredValues(recorded);
  return (Object.keys(COLUMNS) as (keyof typeof COLUMNS)[])
    .filter((key) => now[key] !== then[key])
    .map((key) => COLUMNS[key]);
}

/** A recording id that is not the one its digest was made from. */
const recordingIdAltered = (row: { recordingId: string | null; recordingIdDigest: string | null }) =>
  row.recordingId !== null && sha256Hex(row.recordingId) !== row.recordingIdDigest;

/** The sale.evidence_recorded row about this evidence, and the hash it recorded. */
function recordedRow(rows: readonly PackAuditRow[], submissionId: string) {
  for (const row of rows) {
    if (row.action !== "sale.evidence_recorded") continue;
    const details = JSON.parse(row.details) as Record<string, unknown>;
    if (details.submissionId === submissionId) return { row, details };
  }
  return null;
}

/** The row's hash, and its link to the row before it in the database (which a sale's own rows seldom are). */
async function checkInChain(db: Database, row: PackAuditRow): Promise<IntegrityProblem | null> {
  if (chainHash(row.prevHash, row) !== row.hash)
    return { code: "audit_row_edited", seq: row.seq, action: row.action };
  const [before] = row.seq === 1 ? [] : await readChain(db, row.seq - 2, 1);
  const previous = row.seq === 1 ? GENESIS_HASH : before?.seq === row.seq - 1 ? before.hash : null;
  if (previous !== row.prevHash) return { code: "audit_row_unlinked", seq: row.seq, action: row.action };
  return null;
}

/**
 * The sale page's check: the evidence row as it is now against the sale.evidence_recorded row of the trail (its
 * hash, its place in the chain). Without a pack the trail names only the script's version and hash; another change
 * shows as "altered" without naming the column (a dispute pack names them: verifyDisputePack).
 */
export async function checkSaleEvidence(
  db: Database,
  protocol: string,
  evidence: SaleEvidence,
): Promise<IntegrityProblem[]> {
  const recorded = recordedRow(await readChainOfSale(db, protocol), evidence.submissionId);
  if (!recorded) return [{ code: "not_recorded" }];
  const problems: IntegrityProblem[] = [];
  const broken = await checkInChain(db, recorded.row);
  if (broken) problems.push(broken);
  const fields: string[] = [];
  const altered = evidenceHash(evidence) !== recorded.details.evidenceHash;
  if (evidence.scriptVersion !== recorded.details.scriptVersion) fields.push("script_version");
  if (evidence.scriptHash !== recorded.details.scriptHash) fields.push("script_hash");
  // With the rest as recorded, so is the digest: a recording id that does not match it is what changed.
  if (!altered && recordingIdAltered(evidence)) fields.push("recording_id");
  if (altered || fields.length > 0) problems.push({ code: "evidence_altered", fields });
  return problems;
}

export interface PackVerification {
  problems: IntegrityProblem[];
  /** The trail row that recorded the evidence, when the pack has it. */
  recordedSeq: number | null;
  auditRows: number;
}

/**
 * A dispute pack, whole: its signature (one of `keys`), its evidence's hash, the sale.evidence_recorded row
 * carrying it, each trail row's hash and link; then, with `db`, the database now: the evidence row still what the
 * trail recorded, every row of the pack still in the chain unchanged.
 */
export async function verifyDisputePack(
  signed: { pack: { evidence: PackEvidence; auditTrail: PackAuditRow[] }; signature: string },
  keys: Parameters<typeof checkPackSignature>[1],
  db: Database | null,
): Promise<PackVerification> {
  const problems: IntegrityProblem[] = [];
  const signature = await checkPackSignature(signed, keys);
  if (signature !== "ok") problems.push({ code: "signature", detail: signature });
  const { evidence, auditTrail } = signed.pack;
  const hash = evidenceHash(evidenceRecordOf(evidence));
  if (hash !== evidence.evidenceHash) problems.push({ code: "pack_evidence_hash" });
  if (recordingIdAltered(evidence)) problems.push({ code: "evidence_altered", fields: ["recording_id"] });
  const recorded = recordedRow(auditTrail, evidence.submissionId);
  if (!recorded || recorded.details.evidenceHash !== hash) problems.push({ code: "not_recorded" });
  for (const [index, row] of auditTrail.entries()) {
    if (chainHash(row.prevHash, row) !== row.hash) {
      problems.push({ code: "audit_row_edited", seq: row.seq, action: row.action });
    } else {
      const before = auditTrail[index - 1];
      if (before?.seq === row.seq - 1 && before.hash !== row.prevHash)
        problems.push({ code: "audit_row_unlinked", seq: row.seq, action: row.action });
    }
  }
  if (db) {
    for (const row of auditTrail) {
      const [now] = await readChain(db, row.seq - 1, 1);
      if (now?.seq !== row.seq || now.hash !== row.hash || chainHash(now.prevHash, now) !== row.hash) {
        problems.push({
          code: "audit_row_changed",
          seq: row.seq,
          action: row.action,
          gone: now?.seq !== row.seq,
        });
        continue;
      }
      const broken = await checkInChain(db, now);
      if (broken) problems.push(broken);
    }
    const row = await findSaleEvidence(db, evidence.submissionId);
    if (!row) problems.push({ code: "evidence_missing" });
    else {
      const fields = differingColumns(row, evidence);
      if (recordingIdAltered(row) && !fields.includes("recording_id_digest")) fields.push("recording_id");
      if (fields.length > 0) problems.push({ code: "evidence_altered", fields });
    }
  }
  return { problems, recordedSeq: recorded?.row.seq ?? null, auditRows: auditTrail.length };
}

/** A problem in one line, as the CLI prints it (the sale's page says it in pt-BR). */
export function describeIntegrityProblem(problem: IntegrityProblem, protocol: string): string {
  switch (problem.code) {
    case "signature":
      return problem.detail === "unknown_key"
        ? "the pack is signed with a key this app does not have (another AUTH_SECRET: pass its keys with --jwks)"
        : problem.detail === "other_content"
          ? "the pack was changed after it was signed: its signature covers other content"
          : "the pack's signature does not verify";
    case "pack_evidence_hash":
      return "the pack's evidence does not hash to the evidenceHash it states: it was changed";
    case "not_recorded":
      return `no sale.evidence_recorded row of the audit trail carries the evidence's hash of sale ${protocol}`;
    case "audit_row_edited":
      return `audit row #${problem.seq} (${problem.action}) was changed after it was written: its content no longer matches its hash`;
    case "audit_row_unlinked":
      return `audit row #${problem.seq} (${problem.action}) does not follow the row before it in the chain`;
    case "audit_row_changed":
      return problem.gone
        ? `audit row #${problem.seq} (${problem.action}) of the pack is missing from the audit trail`
        : `audit row #${problem.seq} (${problem.action}) differs from the pack's in the audit trail`;
    case "evidence_missing":
      return `the evidence row of sale ${protocol} is missing from the database`;
    case "evidence_altered":
      return problem.fields.length > 0
        ? `the evidence row of sale ${protocol} was altered: ${problem.fields.join(", ")} ${problem.fields.length === 1 ? "differs" : "differ"} from what the audit trail recorded`
        : `the evidence row of sale ${protocol} was altered: it no longer hashes to what the audit trail recorded`;
  }
}
