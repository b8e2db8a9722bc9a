import type { KeyObject } from "node:crypto";
import { CompactSign, compactVerify, importJWK, type JWK } from "jose";
import type { ChainRow } from "@/lib/db/queries/audit-events";
import type { Sale, SaleEvidence } from "@/lib/db/schema";
import type { PartnerSaleRequestBody } from "@/lib/provider/types";
import { formatProtocol } from "./protocol";
import type { EvidenceRecord } from "./evidence";

export const DISPUTE_PACK_FORMAT = "partner-sales/dispute-pack/v1";

/** The evidence as `evidenceContent` covers it, the recording id while it is kept, and the hash. */
export interface PackEvidence extends Omit<EvidenceRecord, "recordedAt"> {
  recordedAt: string;
  /** Null once erasure emptied it (the digest stays). */
  recordingId: string | null;
  evidenceHash: string;
}

/** A trail row as its hash covers it: `details` is the database's text of it, which the hash covers byte for byte. */
export type PackAuditRow = Omit<ChainRow, "id">;

/** What a dispute pack holds: readable as it is, and signed (`signature`) over its canonical JSON. */
export interface DisputePack {
  format: typeof DISPUTE_PACK_FORMAT;
  generatedAt: string;
  sale: {
    protocol: string;
    submissionId: string;
    plan: { id: string; name: string };
    agent: { id: string | null; name: string | null };
    integration: string | null;
    status: Sale["status"];
    createdAt: string;
    completedAt: string | null;
    providerAnswer: {
      httpStatus: number | null;
      message: string | null;
      outcomeDetail: string | null;
      rejectedFields: Sale["rejectedFields"];
    };
    /** `resolvedAt`: the pack's v1 key for when it was settled (kept: packs are signed and parsed by others). */
    settlement: { resolution: Sale["resolution"]; resolvedAt: string | null } | null;
  };
  /** The customer's data as sent to the provider, or why and when it was erased (then what the sale kept of it). */
  customer: {
    erased: { reason: NonNullable<Sale["personalDataErasure"]>; at: string } | null;
    data: Omit<PartnerSaleRequestBody, "planId">;
  };
  evidence: PackEvidence;
  auditTrail: PackAuditRow[];
  howToVerify: string;
}

export interface SignedDisputePack {
  pack: DisputePack;
  /** Compact JWS (EdDSA) whose payload is `canonicalJson(pack)`. */
  signature: string;
}

const HOW_TO_VERIFY = [
  "1. The signature: a compact JWS (EdDSA, Ed25519) whose payload is this pack in canonical JSON (object keys",
  "sorted, no spaces); verify it with the public key its header's kid names at /api/v1/evidence-keys, and compare",
  "its payload with the pack. 2. The evidence: SHA-256 (hex) of the JSON object {submissionId,",
  "scriptVersion, scriptHash, scriptText, confirmations [{id, text, required, confirmedAt}], recordingIdDigest,",
  "agentId, door, recordedAt}, keys in that order, no spaces, is evidenceHash. 3. The audit trail: the",
  "sale.evidence_recorded row's details carry that evidenceHash; each row's hash is SHA-256 (hex) of prevHash",
  "followed by the JSON array [seq, at, action, actor, door, agentId, protocol, reason, details] written with",
  '", " between elements (details as given). 4. Against the partner\'s database: npm run evidence -- verify',
  "<pack.json> also checks that the evidence and the trail rows there are unchanged.",
].join(" ");

export function evidenceRecordOf(evidence: Omit<PackEvidence, "recordedAt"> & { recordedAt: string | Date }) {
  return { ...evidence, recordedAt: new Date(evidence.recordedAt) } satisfies EvidenceRecord;
}

export function buildDisputePack(input: {
  sale: Sale & { agentName: string | null; integrationName: string | null };
  planName: string;
  evidence: SaleEvidence;
  auditTrail: readonly ChainRow[];
  now: Date;
}): DisputePack {
  const { sale, evidence } = input;
  const { planId, ...customer } = sale.request;
  const iso = (at: Date | null) => (at === null ? null : at.toISOString());
  return {
    format: DISPUTE_PACK_FORMAT,
    generatedAt: input.now.toISOString(),
    sale: {
      protocol: formatProtocol(sale.protocol),
      submissionId: sale.submissionId,
      plan: { id: planId, name: input.planName },
      agent: { id: sale.agentId, name: sale.agentName },
      integration: sale.integrationName,
      status: sale.status,
      createdAt: sale.createdAt.toISOString(),
      completedAt: iso(sale.completedAt),
      providerAnswer: {
        httpStatus: sale.upstreamStatus,
        message: sale.upstreamMessage,
        outcomeDetail: sale.outcomeDetail,
        rejectedFields: sale.rejectedFields,
      },
      settlement: sale.resolution ? { resolution: sale.resolution, resolvedAt: iso(sale.settledAt) } : null,
    },
    customer: {
      erased:
        sale.personalDataErasure && sale.personalDataErasedAt
          ? { reason: sale.personalDataErasure, at: sale.personalDataErasedAt.toISOString() }
          : null,
      data: customer,
    },
    evidence: {
      submissionId: evidence.submissionId,
      scriptVersion: evidence.scriptVersion,
      scriptHash: evidence.scriptHash,
      scriptText: evidence.scriptText,
      confirmations: evidence.confirmations.map(({ id, text, required, confirmedAt }) => ({
        id,
        text,
        required,
        confirmedAt,
      })),
      recordingIdDigest: evidence.recordingIdDigest,
      agentId: evidence.agentId,
      door: evidence.door,
      recordedAt: evidence.recordedAt.toISOString(),
      recordingId: evidence.recordingId,
      evidenceHash: evidence.evidenceHash,
    },
    auditTrail: input.auditTrail.map(({ id: _id, ...row }) => row),
    howToVerify: HOW_TO_VERIFY,
  };
}

/** JSON with every object's keys sorted and no spaces: what the signature covers, rebuilt the same by anyone. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export async function signDisputePack(
  pack: DisputePack,
  key: { privateKey: KeyObject; kid: string },
): Promise<SignedDisputePack> {
  const signature = await new CompactSign(new TextEncoder().encode(canonicalJson(pack)))
    .setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "dispute-pack+json" })
    .sign(key.privateKey);
  return { pack, signature };
}

/**
 * Whether `signature` is a JWS by one of `keys` over exactly this pack: "ok", or what is wrong, said for the
 * operator.
 */
export async function checkPackSignature(
  signed: { pack: unknown; signature: unknown },
  keys: readonly (JWK & { kid?: string })[],
): Promise<"ok" | "unknown_key" | "invalid" | "other_content"> {
  if (typeof signed.signature !== "string") return "invalid";
  const [header] = signed.signature.split(".");
  let kid: unknown;
  try {
    kid = (JSON.parse(Buffer.from(header ?? "", "base64url").toString("utf8")) as { kid?: unknown }).kid;
  } catch {
    return "invalid";
  }
  const jwk = keys.find((key) => key.kid === kid);
  if (!jwk) return "unknown_key";
  try {
    const { payload } = await compactVerify(signed.signature, await importJWK(jwk, "EdDSA"), {
      algorithms: ["EdDSA"],
    });
    return new TextDecoder().decode(payload) === canonicalJson(signed.pack) ? "ok" : "other_content";
  } catch {
    return "invalid";
  }
}
