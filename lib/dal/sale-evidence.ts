import "server-only";
import { resolveAuthSecret } from "@/lib/auth/secret";
import { getDb } from "@/lib/db";
import { agentActor, readChainOfSale, recordAuditEvent } from "@/lib/db/queries/audit-events";
import { findSaleEvidence } from "@/lib/db/queries/sale-evidence";
import { findSale } from "@/lib/db/queries/sales";
import type { EvidenceConfirmation } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { buildDisputePack, signDisputePack } from "@/lib/sales/dispute-pack";
import { checkSaleEvidence, type IntegrityProblem } from "@/lib/sales/evidence-integrity";
import { evidenceSigningKey } from "@/lib/sales/evidence-key";
import { isUuid } from "@/lib/validation/sale";
import { configuredPlanName } from "./plans";
import { getVisibleSale } from "./sales";
import { logRefusedAccess, type SessionAgent } from "./session";

/** A scripted sale's evidence as its page shows it, with what the check against the audit trail found. */
export interface SaleEvidenceView {
  scriptVersion: string;
  scriptHash: string;
  scriptText: string;
  confirmations: EvidenceConfirmation[];
  /** Null when none was given or erasure emptied it (`recordingErased`). */
  recordingId: string | null;
  recordingErased: boolean;
  agentName: string | null;
  door: string;
  recordedAt: Date;
  /** Empty when the evidence is what the trail recorded. */
  problems: IntegrityProblem[];
  canDownloadPack: boolean;
}

/** The evidence of a sale the agent may see (getVisibleSale's rule), or null: none, or not theirs to see. */
export async function getSaleEvidence(
  agent: SessionAgent,
  submissionId: string,
): Promise<SaleEvidenceView | null> {
  const sale = await getVisibleSale(agent, submissionId);
  if (!sale) return null;
  const db = await getDb();
  const evidence = await findSaleEvidence(db, sale.submissionId);
  if (!evidence) return null;
  return {
    scriptVersion: evidence.scriptVersion,
    scriptHash: evidence.scriptHash,
    scriptText: evidence.scriptText,
    confirmations: evidence.confirmations,
    recordingId: evidence.recordingId,
    recordingErased: evidence.recordingId === null && evidence.recordingIdDigest !== null,
    agentName: sale.agentName,
    door: evidence.door,
    recordedAt: evidence.recordedAt,
    problems: await checkSaleEvidence(db, sale.protocol.replace("-", ""), evidence),
    canDownloadPack: agent.role === "supervisor",
  };
}

/**
 * A supervisor's dispute pack of a scripted sale (lib/sales/dispute-pack.ts), signed, its download on the audit
 * trail; null for anyone else, an unknown sale or a sale without evidence. Not recorded, not given.
 */
export async function exportDisputePack(
  agent: SessionAgent,
  submissionId: string,
): Promise<{ fileName: string; body: string } | null> {
  if (!isUuid(submissionId)) return null;
  if (agent.role !== "supervisor") {
    await logRefusedAccess(agent, "supervisor_action", { action: "dispute_pack", submissionId });
    return null;
  }
  const db = await getDb();
  const [sale, evidence] = await Promise.all([
    findSale(db, submissionId),
    findSaleEvidence(db, submissionId),
  ]);
  if (!sale || !evidence) return null;
  const auditTrail = await readChainOfSale(db, sale.protocol);
  const pack = buildDisputePack({
    sale,
    planName: configuredPlanName(sale.request.planId),
    evidence,
    auditTrail,
    now: new Date(),
  });
  const key = await evidenceSigningKey(resolveAuthSecret(getConfig()));
  const signed = await signDisputePack(pack, { privateKey: key.privateKey, kid: key.publicJwk.kid });
  await recordAuditEvent(db, {
    ...agentActor(agent),
    action: "sale.dispute_pack_exported",
    protocol: sale.protocol,
    details: { submissionId, evidenceHash: evidence.evidenceHash, keyId: key.publicJwk.kid },
  });
  return {
    fileName: `prova-venda-${pack.sale.protocol}.json`,
    body: `${JSON.stringify(signed, null, 2)}\n`,
  };
}

/** The public keys dispute packs are signed with (a JWKS), for anyone who must check one. */
export async function evidencePublicKeys(): Promise<{ keys: object[] }> {
  const key = await evidenceSigningKey(resolveAuthSecret(getConfig()));
  return { keys: [key.publicJwk] };
}
