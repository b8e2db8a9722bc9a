"use client";

import type { Route } from "next";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import type { AppearanceWarning } from "@/lib/embed-appearance";
import type { ErrorBody } from "@/lib/errors";
import { frameOwnProblem, isEmbedErrorCode, type EmbedProblemCause } from "@/lib/errors/embed-frame";
import type { PrefillValues } from "@/lib/validation/prefill";
import { EmbedProblem } from "./embed-problem";
import { allowedParentOrigin, onParentMessage, postToParent, setPendingPrefill } from "./parent-channel";

const neverChanges = () => () => {};

/** Why the frame cannot go on, with the message to show: the answer's own, or the frame's. */
type SessionAnswer = { prefill: PrefillValues } | { error: EmbedProblemCause };

async function exchangeToken(token: string): Promise<SessionAnswer> {
  try {
    const response = await fetch("/api/embed/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token }),
    });
    const answer = (await response.json()) as Partial<ErrorBody> & { prefill?: PrefillValues };
    if (response.ok) return { prefill: answer.prefill ?? {} };
    // The portal is told only codes it is documented to get: anything else is the exchange failing. The
    // refusal's message comes with it (the frame does not carry the whole table).
    return {
      error:
        isEmbedErrorCode(answer.error) && typeof answer.message === "string" && answer.message
          ? { code: answer.error, message: answer.message }
          : frameOwnProblem("service_unavailable"),
    };
  } catch {
    return { error: frameOwnProblem("service_unavailable") };
  }
}

/**
 * Signs the agent in with the portal's token, which never travels in an address: the frame says it is ready,
 * the portal framing it (its exact allowed origin, window.parent only) posts the token, and it is exchanged
 * once by POST /api/embed/session.
 */
export function PortalTokenSignIn({
  allowedOrigins,
  warnings,
}: {
  allowedOrigins: string[];
  warnings?: readonly AppearanceWarning[];
}) {
  const router = useRouter();
  const asked = useRef(false);
  const taken = useRef(false);
  const [problem, setProblem] = useState<EmbedProblemCause | null>(null);
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
          : Promise.resolve({ error: frameOwnProblem("token_unavailable") });
      void exchange.then((answer) => {
        if ("error" in answer) {
          setProblem(answer.error);
          return;
        }
        setPendingPrefill(answer.prefill);
        // The same address (the portal's appearance included), now with the session.
        const next = new URLSearchParams(window.location.search);
        next.delete("sign-in");
        next.set("status", "signed-in");
        router.replace(`/embed?${next}` as Route);
      });
    });
    if (!asked.current) {
      asked.current = true;
      postToParent(allowedOrigins, { type: "partner-sales:ready", awaitingToken: true });
    }
    return stopListening;
  }, [allowedOrigins, framed, router]);

  const shown = framed ? problem : frameOwnProblem("token_not_framed");
  // While it signs in, the frame keeps the portal's initialHeight: shrinking it to one line, to grow it again a
  // moment later for the form, would shift the portal's page twice.
  return shown ? (
    <EmbedProblem problem={shown} allowedOrigins={allowedOrigins} warnings={warnings} />
  ) : (
    <p role="status" className="p-3 text-sm text-slate-600">
      Entrando…
    </p>
  );
}
