"use client";

import type { SaleFormValues } from "@/lib/validation/sale";

// Third-party frames may not touch sessionStorage: the token's prefill waits here, in memory, for the form
// that the client-side navigation after sign-in renders.
let pendingPrefill: Partial<SaleFormValues> | undefined;

export function setPendingPrefill(values: Partial<SaleFormValues>): void {
  pendingPrefill = values;
}

export function takePendingPrefill(): Partial<SaleFormValues> | undefined {
  const values = pendingPrefill;
  pendingPrefill = undefined;
  return values;
}

export type EmbedEvent =
  | { type: "partner-sales:ready" }
  | { type: "partner-sales:resize"; height: number }
  | { type: "partner-sales:submitted"; submissionId: string; status: string; externalId: string | null }
  | { type: "partner-sales:error"; code: string };

/** The portal framing us, if it is one of the allowed origins; events go to that exact origin, never "*". */
export function allowedParentOrigin(allowedOrigins: readonly string[]): string | null {
  if (window.parent === window) return null;
  const ancestor = window.location.ancestorOrigins?.[0];
  let origin = ancestor ?? null;
  if (!origin && document.referrer) {
    try {
      origin = new URL(document.referrer).origin;
    } catch {
      origin = null;
    }
  }
  return origin && allowedOrigins.includes(origin) ? origin : null;
}

export function postToParent(allowedOrigins: readonly string[], event: EmbedEvent): void {
  const origin = allowedParentOrigin(allowedOrigins);
  if (origin) window.parent.postMessage(event, origin);
}
