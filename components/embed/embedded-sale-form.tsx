"use client";

import { useEffect, useState } from "react";
import { SaleForm, type SaleFormProps } from "@/components/sale-form/sale-form";
import type { AppearanceWarning } from "@/lib/embed-appearance";
import { pickPrefillFields } from "@/lib/validation/prefill";
import { FrameReport } from "./frame-report";
import { onParentMessage, postToParent, peekPendingPrefill, clearPendingPrefill } from "./parent-channel";

/**
 * The sale form inside a partner portal: tells the portal it is ready and how tall it is, takes prefill
 * messages from the allowed portal only (never submitting by itself), and reports outcomes without personal data.
 */
export function EmbeddedSaleForm({
  allowedOrigins,
  warnings,
  ...form
}: Omit<SaleFormProps, "prefill" | "onOutcome"> & {
  allowedOrigins: string[];
  warnings?: readonly AppearanceWarning[];
}) {
  // The token's prefill, handed over by the sign-in step.
  const [handedOver] = useState(() => (typeof window === "undefined" ? undefined : peekPendingPrefill()));
  const [prefill, setPrefill] = useState<SaleFormProps["prefill"]>(() =>
    handedOver && Object.keys(handedOver).length > 0 ? { values: handedOver, nonce: 0 } : undefined,
  );
  useEffect(() => {
    if (handedOver) clearPendingPrefill(handedOver);
  }, [handedOver]);

  useEffect(() => {
    const stopListening = onParentMessage(allowedOrigins, "partner-sales:prefill", (data) =>
      setPrefill({ values: pickPrefillFields(data.fields), nonce: Date.now() }),
    );
    postToParent(allowedOrigins, { type: "partner-sales:ready" });
    return stopListening;
  }, [allowedOrigins]);

  return (
    <FrameReport allowedOrigins={allowedOrigins} warnings={warnings} className="p-3">
      <SaleForm
        {...form}
        prefill={prefill}
        onOutcome={(outcome) => postToParent(allowedOrigins, { type: "partner-sales:submitted", ...outcome })}
      />
    </FrameReport>
  );
}
