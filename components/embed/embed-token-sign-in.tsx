"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { ERRORS, type ErrorBody, type ErrorCode } from "@/lib/errors";
import type { SaleFormValues } from "@/lib/validation/sale";
import { EmbedProblem } from "./embed-problem";
import { allowedParentOrigin, onParentMessage, postToParent, setPendingPrefill } from "./parent-channel";

const neverChanges = () => () => {};

type SessionAnswer = { prefill: Partial<SaleFormValues> } | { error: ErrorCode };

async function exchangeToken(token: string): Promise<SessionAnswer> {
  try {
    const response = await fetch("/api/embed/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token }),
    });
    const answer = (await response.json()) as Partial<ErrorBody> & { prefill?: Partial<SaleFormValues> };
    if (response.ok) return { prefill: answer.prefill ?? {} };
    return { error: answer.error && answer.error in ERRORS ? answer.error : "service_unavailable" };
  } catch {
    return { error: "service_unavailable" };
  }
}

/**
 * Signs the agent in with the portal's token, which never travels in an address: the frame says it is ready,
 * the portal framing it (its exact allowed origin, window.parent only) posts the token, and it is exchanged
 * once by POST /api/embed/session.
 */
export function EmbedTokenSignIn({ allowedOrigins }: { allowedOrigins: string[] }) {
  const router = useRouter();
  const asked = useRef(false);
  const taken = useRef(false);
  const [problem, setProblem] = useState<ErrorCode | null>(null);
  // Outside an allowed portal's frame nobody may hand a token over, so none is asked for.
  const framed = useSyncExternalStore(
    neverChanges,
    () => allowedParentOrigin(allowedOrigins) !== null,
    () => true,
  );

  useEffect(() => {
    if (!framed) return;
    const stopListening = onParentMessage(allowedOrigins, "partner-sales:token", ({ token }) => {
      // A token is good for one sign-in: the first one handed over is the only one sent.
      if (taken.current) return;
      taken.current = true;
      stopListening();
      const exchange: Promise<SessionAnswer> =
        typeof token === "string" && token
          ? exchangeToken(token)
          : Promise.resolve({ error: "token_unavailable" });
      void exchange.then((answer) => {
        if ("error" in answer) {
          setProblem(answer.error);
          return;
        }
        setPendingPrefill(answer.prefill);
        router.replace("/embed?status=signed-in");
      });
    });
    if (!asked.current) {
      asked.current = true;
      postToParent(allowedOrigins, { type: "partner-sales:ready", awaitingToken: true });
    }
    return stopListening;
  }, [allowedOrigins, framed, router]);

  const shown = framed ? problem : "token_not_framed";
  return shown ? (
    <EmbedProblem code={shown} allowedOrigins={allowedOrigins} />
  ) : (
    <p role="status" className="text-sm text-slate-600">
      Entrando…
    </p>
  );
}
