import type { EvidenceConfirmation } from "@/lib/db/schema";
import { EVIDENCE_MESSAGES, MAX_RECORDING_ID_LENGTH, type EvidenceField } from "@/lib/validation/evidence";
import { sha256Hex, type ShownScript } from "./offer-script";

/** What a scripted sale's record holds (lib/db/schema.ts, saleEvidence), before the database has it. */
export interface EvidenceRecord {
  submissionId: string;
  scriptVersion: string;
  scriptHash: string;
  scriptText: string;
  confirmations: EvidenceConfirmation[];
  recordingIdDigest: string | null;
  agentId: string | null;
  door: string;
  recordedAt: Date;
}

/**
 * The canonical JSON the record's hash covers: keys in this order, times in ISO 8601 with milliseconds, no spaces.
 * The recording id is covered by its digest, so the hash still holds once erasure has emptied the id. A dispute
 * pack carries these fields; anyone recomputes the hash from them (docs: "The evidence of a sale").
 */
export function evidenceContent(record: EvidenceRecord): string {
  return JSON.stringify({
    submissionId: record.submissionId,
    scriptVersion: record.scriptVersion,
    scriptHash: record.scriptHash,
    scriptText: record.scriptText,
    confirmations: record.confirmations.map(({ id, text, required, confirmedAt }) => ({
      id,
      text,
      required,
      confirmedAt,
    })),
    recordingIdDigest: record.recordingIdDigest,
    agentId: record.agentId,
    door: record.door,
    recordedAt: record.recordedAt.toISOString(),
  });
}

export const evidenceHash = (record: EvidenceRecord): string => sha256Hex(evidenceContent(record));

/** What the form (or a program) says about the script: which one it showed, what was ticked when, the recording. */
export interface EvidenceInput {
  scriptHash: string;
  /** Confirmation id → when it was ticked (ISO 8601), by the sender's clock. */
  confirmedAt: Record<string, string>;
  recordingId: string | null;
  /** The sender's clock as it sent the ticks (ISO 8601), when it says: the ticks are moved by its error. */
  sentAt?: string | null;
}

/** How far a tick's time may be ahead of the server's clock (the agent's computer runs a little fast). */
const CLOCK_SKEW_MS = 5 * 60_000;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
/** A sender's clock this close to the server's is right (the difference is the trip); past it, it is corrected. */
const CLOCK_TRIP_MS = 30_000;
/** A sender's clock further off than this is not a clock to correct by. */
const CLOCK_WRONG_MS = 24 * 3_600_000;

/**
 * How far the sender's clock is behind the server's (negative: ahead), from the time it says it sent the ticks;
 * 0 when it says nothing or agrees within the trip; null when what it says is not a time or a day off.
 */
function clockCorrection(sentAt: string | null | undefined, now: Date): number | null {
  if (!sentAt) return 0;
  const sent = Date.parse(sentAt);
  if (!ISO_UTC.test(sentAt) || Number.isNaN(sent)) return null;
  const correction = now.getTime() - sent;
  if (Math.abs(correction) > CLOCK_WRONG_MS) return null;
  return Math.abs(correction) > CLOCK_TRIP_MS ? correction : 0;
}

/** How far back a tick may be: a call longer than this is not a call. */
const LONGEST_CALL_MS = 12 * 3_600_000;

export type EvidenceProblem =
  /** The form showed another text than the plan's script now (the catalogue changed meanwhile). */
  | { code: "script_changed" }
  /** Required confirmations not ticked, in the script's order. */
  | { code: "confirmations_missing"; missing: string[] }
  /** A tick's time that is not a time, or not in this call; a confirmation the script does not have. */
  | { code: "confirmations_invalid" }
  | { code: "recording_id_invalid" };

/**
 * The form's evidence fields, as posted: `scriptHash`, `confirmations` (JSON: id → ISO time), `recordingId` and
 * `confirmationsSentAt` (ISO time). Anything not a string reads as empty.
 */
export function readEvidenceFields(fields: Record<string, unknown>): EvidenceInput | "malformed" {
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  // The form posts the ticks as a JSON string; the session's JSON API may send the object itself.
  let ticks: unknown = fields.confirmations;
  if (typeof ticks === "string") {
    const raw = ticks.trim();
    if (raw.length > 4_000) return "malformed";
    try {
      ticks = raw ? JSON.parse(raw) : {};
    } catch {
      return "malformed";
    }
  } else if (ticks === undefined || ticks === null) {
    ticks = {};
  }
  if (!ticks || typeof ticks !== "object" || Array.isArray(ticks)) return "malformed";
  const entries = Object.entries(ticks);
  if (entries.length > 20 || entries.some(([, value]) => typeof value !== "string")) return "malformed";
  const confirmedAt = Object.fromEntries(entries) as Record<string, string>;
  const recordingId = text(fields.recordingId).trim();
  const sentAt = text(fields.confirmationsSentAt).trim();
  return {
    scriptHash: text(fields.scriptHash).trim(),
    confirmedAt,
    recordingId: recordingId || null,
    sentAt: sentAt || null,
  };
}

/**
 * The record of a scripted sale from what the form sent, or what is wrong with it: the script it showed must be the
 * plan's now, every required confirmation ticked within this call, the recording id short printable text.
 */
export function buildEvidence(
  script: ShownScript,
  input: EvidenceInput,
  seller: { submissionId: string; agentId: string | null; door: string },
  now: Date,
):
  { ok: true; record: EvidenceRecord; recordingId: string | null } | { ok: false; problem: EvidenceProblem } {
  // No script named at all (a program that did not send the evidence): the confirmations are what it lacks.
  if (input.scriptHash === "") {
    const missing = script.confirmations.filter((item) => item.required).map((item) => item.id);
    return { ok: false, problem: { code: "confirmations_missing", missing } };
  }
  if (input.scriptHash !== script.hash) return { ok: false, problem: { code: "script_changed" } };
  const known = new Set(script.confirmations.map((item) => item.id));
  if (Object.keys(input.confirmedAt).some((id) => !known.has(id))) {
    return { ok: false, problem: { code: "confirmations_invalid" } };
  }
  const correction = clockCorrection(input.sentAt, now);
  if (correction === null) return { ok: false, problem: { code: "confirmations_invalid" } };
  const confirmations: EvidenceConfirmation[] = [];
  for (const item of script.confirmations) {
    const at = Object.hasOwn(input.confirmedAt, item.id) ? input.confirmedAt[item.id] : undefined;
    if (at === undefined) continue;
    const time = Date.parse(at) + correction;
    if (
      !ISO_UTC.test(at) ||
      Number.isNaN(time) ||
      time > now.getTime() + CLOCK_SKEW_MS ||
      time < now.getTime() - LONGEST_CALL_MS
    ) {
      return { ok: false, problem: { code: "confirmations_invalid" } };
    }
    confirmations.push({ ...item, confirmedAt: new Date(time).toISOString() });
  }
  const missing = script.confirmations
    .filter((item) => item.required && !Object.hasOwn(input.confirmedAt, item.id))
    .map((item) => item.id);
  if (missing.length > 0) return { ok: false, problem: { code: "confirmations_missing", missing } };
  const { recordingId } = input;
  if (
    recordingId !== null &&
    (recordingId.length > MAX_RECORDING_ID_LENGTH || !/^[\p{L}\p{N}._:\/#-]+$/u.test(recordingId))
  ) {
    return { ok: false, problem: { code: "recording_id_invalid" } };
  }
  return {
    ok: true,
    recordingId,
    record: {
      submissionId: seller.submissionId,
      scriptVersion: script.version,
      scriptHash: script.hash,
      scriptText: script.text,
      confirmations,
      recordingIdDigest: recordingId === null ? null : sha256Hex(recordingId),
      agentId: seller.agentId,
      door: seller.door,
      recordedAt: now,
    },
  };
}

/** A problem as the form's field errors, or null for script_changed (a message for the whole form). */
export function evidenceFieldErrors(problem: EvidenceProblem): Partial<Record<EvidenceField, string>> | null {
  switch (problem.code) {
    case "script_changed":
      return null;
    case "confirmations_missing":
      return { confirmations: EVIDENCE_MESSAGES.confirmationsMissing };
    case "confirmations_invalid":
      return { confirmations: EVIDENCE_MESSAGES.confirmationsInvalid };
    case "recording_id_invalid":
      return { recordingId: EVIDENCE_MESSAGES.recordingIdInvalid };
  }
}
