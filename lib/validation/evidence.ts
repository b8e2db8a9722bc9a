/**
 * The sale form's evidence fields (issue 36: the offer script's confirmations and the call's recording id), beside
 * the sale's own (./sale.ts): names and messages the browser and the server share. The record itself is built on
 * the server (lib/sales/evidence.ts).
 */

export const MAX_RECORDING_ID_LENGTH = 100;

/**
 * What the form posts for the evidence: the script's hash it showed, the ticks (JSON), the recording id, and the
 * sender's clock as it sent them (ISO 8601), by which the server corrects a computer whose clock runs off.
 */
export const EVIDENCE_FORM_FIELDS = [
  "scriptHash",
  "confirmations",
  "recordingId",
  "confirmationsSentAt",
] as const;

/** The form's evidence fields that can carry an error, beside the sale's own (lib/validation/sale.ts). */
export const EVIDENCE_FIELDS = ["confirmations", "recordingId"] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];

export const EVIDENCE_MESSAGES = {
  confirmationsMissing: "Marque as confirmações obrigatórias do cliente antes de enviar.",
  confirmationsInvalid: "As confirmações não conferem com o roteiro: desmarque e marque de novo.",
  scriptedPlanInSession:
    "Este plano é vendido com roteiro de oferta: a venda precisa de um agente que leia o roteiro ao cliente e registre as confirmações.",
  recordingIdInvalid: "Use até 100 letras, números ou . _ : / # - no ID da gravação.",
} as const;

/** Letters, digits and `. _ : / # -`, up to 100: what dialers put in a recording's id, and nothing that is markup. */
export function isRecordingId(value: string): boolean {
  return value.length <= MAX_RECORDING_ID_LENGTH && /^[\p{L}\p{N}._:/#-]+$/u.test(value);
}
