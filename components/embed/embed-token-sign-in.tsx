"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { ERRORS, userMessageFor, type ErrorBody, type ErrorCode } from "@/lib/errors";
import type { SaleFormValues } from "@/lib/validation/sale";
import { allowedParentOrigin, postToParent, setPendingPrefill } from "./parent-channel";

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

export function EmbedTokenSignIn({ token, allowedOrigins }: { token: string; allowedOrigins: string[] }) {
  const router = useRouter();
  const started = useRef(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    // A token is good for one sign-in: never send it twice, and take it out of the address at once.
    if (started.current) return;
    started.current = true;
    window.history.replaceState(null, "", "/embed");
    // Outside an allowed portal's frame the token is not even sent.
    const exchange: Promise<SessionAnswer> = allowedParentOrigin(allowedOrigins)
      ? exchangeToken(token)
      : Promise.resolve({ error: "token_not_framed" });
    void exchange.then((answer) => {
      if ("prefill" in answer) {
        setPendingPrefill(answer.prefill);
        router.replace("/embed?status=signed-in");
        return;
      }
      setProblem(userMessageFor(answer.error));
      postToParent(allowedOrigins, { type: "partner-sales:error", code: answer.error });
    });
  }, [token, allowedOrigins, router]);

  return problem ? (
    <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900">
      {problem}
    </p>
  ) : (
    <p role="status" className="text-sm text-slate-600">
      Entrando…
    </p>
  );
}
