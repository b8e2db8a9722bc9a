"use client";

import { useState } from "react";
import type { ShownScript } from "@/lib/sales/offer-script";
import { EVIDENCE_MESSAGES, isRecordingId, type EvidenceField } from "@/lib/validation/evidence";
import { firstMissingConfirmation, withTick, type Ticks } from "./confirmation-ticks";

/** The controls' ids, which the focus goes to by. */
export const RECORDING_ID_CONTROL = "recordingId";
export const confirmationControlId = (id: string) => `confirmation-${id}`;

export type EvidenceErrors = Partial<Record<EvidenceField, string>>;
export type SaleEvidence = ReturnType<typeof useSaleEvidence>;

const recordingIdError = (value: string) =>
  value.trim() && !isRecordingId(value.trim()) ? EVIDENCE_MESSAGES.recordingIdInvalid : undefined;

/**
 * The chosen plan's offer script as the agent works through it: the confirmations ticked and when, the call's
 * recording id, and their errors (checked on submit like the sale's fields, or sent back by the server). Another
 * plan starts with no ticks; the recording id belongs to the call, so only a new sale clears it.
 */
export function useSaleEvidence(script: ShownScript | null) {
  const scriptHash = script?.hash ?? null;
  const [confirmations, setConfirmations] = useState<{
    scriptHash: string | null;
    ticks: Ticks;
    error?: string | undefined;
  }>({ scriptHash, ticks: {} });
  // Another plan chosen: its confirmations start unticked (adjusted while rendering, so no frame shows old ticks).
  if (confirmations.scriptHash !== scriptHash) setConfirmations({ scriptHash, ticks: {} });
  const ticks = confirmations.scriptHash === scriptHash ? confirmations.ticks : {};
  const [recording, setRecording] = useState<{ value: string; error?: string | undefined }>({ value: "" });

  const missingMessage = (next: Ticks) =>
    script && firstMissingConfirmation(script.confirmations, next)
      ? EVIDENCE_MESSAGES.confirmationsMissing
      : undefined;

  return {
    script,
    ticks,
    confirmationsError: script ? confirmations.error : undefined,
    recordingId: recording.value,
    recordingIdError: script ? recording.error : undefined,

    tick(id: string, ticked: boolean) {
      setConfirmations((current) => {
        const next = withTick(current.ticks, id, ticked, new Date());
        // A message shown stays until what it asks for is done, like a field's after its first check.
        return { ...current, ticks: next, error: current.error ? missingMessage(next) : undefined };
      });
    },

    changeRecordingId(value: string) {
      setRecording((current) => ({ value, error: current.error ? recordingIdError(value) : undefined }));
    },
    checkRecordingId() {
      setRecording((current) => ({ ...current, error: recordingIdError(current.value) }));
    },

    /** The evidence's errors as a submit finds them, shown; none without a script. */
    check(): EvidenceErrors {
      if (!script) return {};
      const errors = { confirmations: missingMessage(ticks), recordingId: recordingIdError(recording.value) };
      setConfirmations((current) => ({ ...current, error: errors.confirmations }));
      setRecording((current) => ({ ...current, error: errors.recordingId }));
      return Object.fromEntries(Object.entries(errors).filter(([, message]) => message));
    },

    /** The server's word on the evidence (lib/sales/sell.ts), shown on its control. */
    showErrors(errors: EvidenceErrors) {
      if (errors.confirmations) setConfirmations((current) => ({ ...current, error: errors.confirmations }));
      if (errors.recordingId) setRecording((current) => ({ ...current, error: errors.recordingId }));
    },

    /** The first required confirmation not ticked (else the first), or the recording id, takes the focus. */
    focus(field: EvidenceField) {
      if (!script) return;
      const confirmation = firstMissingConfirmation(script.confirmations, ticks) ?? script.confirmations[0];
      const id =
        field === "recordingId" ? RECORDING_ID_CONTROL : confirmationControlId(confirmation?.id ?? "");
      document.getElementById(id)?.focus();
    },

    /** A portal's recording id: put in the field, checked like typing. */
    prefillRecordingId(value: string) {
      setRecording({ value, error: recordingIdError(value) });
    },

    /** A new sale (accepted, or "Nova venda"): nothing ticked, no recording id. */
    reset() {
      setConfirmations({ scriptHash, ticks: {} });
      setRecording({ value: "" });
    },
  };
}
