"use client";

import type { AppearanceWarning } from "@/lib/embed-appearance";
import type { EmbedErrorCode } from "@/lib/errors/embed-frame";
import type { PrefillValues } from "@/lib/validation/prefill";

// Third-party frames may not touch sessionStorage: the token's prefill waits here, in memory, for the form
// that the client-side navigation after sign-in renders.
let pendingPrefill: PrefillValues | undefined;

export function setPendingPrefill(values: PrefillValues): void {
  pendingPrefill = values;
}

/**
 * Read during render, cleared once the form that read it has mounted: a render React throws away (a suspended
 * navigation, a retry) must not use up the prefill, or the form that does mount starts empty.
 */
export function peekPendingPrefill(): PrefillValues | undefined {
  return pendingPrefill;
}

export function clearPendingPrefill(values: PrefillValues): void {
  if (pendingPrefill === values) pendingPrefill = undefined;
}

/** What the frame posts to the portal: public/embed.d.ts declares the same (test/embed-declarations.ts checks). */
export type EmbedEvent =
  // `awaitingToken`: the frame is ready for the portal's token (embed.js answers with `partner-sales:token`).
  | { type: "partner-sales:ready"; awaitingToken?: true }
  | { type: "partner-sales:resize"; height: number }
  | {
      type: "partner-sales:submitted";
      submissionId: string;
      protocol: string;
      status: string;
      externalId: string | null;
    }
  | { type: "partner-sales:error"; code: EmbedErrorCode }
  | ({ type: "partner-sales:warning" } & AppearanceWarning);

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

/**
 * Calls `handle` with each message of this type from the allowed portal framing us: its exact origin, and only
 * from window.parent (not another frame of that page). Returns what stops listening.
 */
export function onParentMessage(
  allowedOrigins: readonly string[],
  type: "partner-sales:prefill" | "partner-sales:token",
  handle: (data: Record<string, unknown>) => void,
): () => void {
  const parentOrigin = allowedParentOrigin(allowedOrigins);
  const onMessage = (event: MessageEvent) => {
    if (!parentOrigin || event.origin !== parentOrigin || event.source !== window.parent) return;
    const data: unknown = event.data;
    if (typeof data === "object" && data !== null && (data as { type?: unknown }).type === type) {
      handle(data as Record<string, unknown>);
    }
  };
  window.addEventListener("message", onMessage);
  return () => window.removeEventListener("message", onMessage);
}
