"use client";

import { useEffect, useRef, useState } from "react";
import { SaleForm, type SaleFormProps } from "@/components/sale-form/sale-form";
import { pickSaleFields } from "@/lib/validation/sale";
import { onParentMessage, postToParent, takePendingPrefill } from "./parent-channel";

/**
 * The sale form inside a partner portal: tells the portal it is ready and how tall it is, takes prefill
 * messages from the allowed portal only (never submitting by itself), and reports outcomes without personal data.
 */
export function EmbeddedSaleForm({
  allowedOrigins,
  ...form
}: Omit<SaleFormProps, "prefill" | "onOutcome"> & { allowedOrigins: string[] }) {
  // The token's prefill, handed over by the sign-in step.
  const [prefill, setPrefill] = useState<SaleFormProps["prefill"]>(() => {
    const values = typeof window === "undefined" ? undefined : takePendingPrefill();
    return values && Object.keys(values).length > 0 ? { values, nonce: 0 } : undefined;
  });
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const stopListening = onParentMessage(allowedOrigins, "partner-sales:prefill", (data) =>
      setPrefill({ values: pickSaleFields(data.fields), nonce: Date.now() }),
    );

    const element = container.current;
    const observer = new ResizeObserver(() => {
      if (element)
        postToParent(allowedOrigins, { type: "partner-sales:resize", height: element.offsetHeight });
    });
    if (element) observer.observe(element);
    postToParent(allowedOrigins, { type: "partner-sales:ready" });
    return () => {
      stopListening();
      observer.disconnect();
    };
  }, [allowedOrigins]);

  return (
    <div ref={container} className="p-3">
      <SaleForm
        {...form}
        prefill={prefill}
        onOutcome={(outcome) => postToParent(allowedOrigins, { type: "partner-sales:submitted", ...outcome })}
      />
    </div>
  );
}
