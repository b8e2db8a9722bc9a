"use client";

import { useEffect, useRef } from "react";
import type { UseFormSetValue } from "react-hook-form";
import { maskFor } from "@/lib/masks";
import type { PrefillValues } from "@/lib/validation/prefill";
import { SALE_FIELDS, type SaleFormValues } from "@/lib/validation/sale";

export interface Prefill {
  values: PrefillValues;
  /** A new nonce applies the values again. */
  nonce: number;
}

/**
 * A partner portal's values put in the form once per nonce, when the form is open to them (no sale on its way,
 * nothing the agent is correcting): shown as if pasted, checked like typing. Never submits.
 */
export function usePortalPrefill(
  prefill: Prefill | undefined,
  open: boolean,
  setValue: UseFormSetValue<SaleFormValues>,
  setRecordingId: (value: string) => void,
): void {
  const applied = useRef<number | null>(null);
  useEffect(() => {
    if (!prefill || !open || applied.current === prefill.nonce) return;
    applied.current = prefill.nonce;
    for (const field of SALE_FIELDS) {
      const value = prefill.values[field];
      if (value === undefined) continue;
      const mask = maskFor(field);
      // Shown as if pasted, and checked like typing, so a bad value is flagged before anyone submits.
      setValue(field, mask ? mask(value) : value, { shouldValidate: true, shouldDirty: true });
    }
    if (prefill.values.recordingId !== undefined) setRecordingId(prefill.values.recordingId);
  }, [prefill, open, setValue, setRecordingId]);
}
