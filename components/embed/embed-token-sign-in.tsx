"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { EmbedTokenProblem } from "@/lib/auth/embed-token";
import type { SaleFormValues } from "@/lib/validation/sale";
import { allowedParentOrigin, postToParent, setPendingPrefill } from "./parent-channel";

const PROBLEMS: Record<EmbedTokenProblem | "unavailable" | "cross-site" | "not-framed" | "sso-off", string> =
  {
    expired: "O acesso expirou. Abra a venda novamente pelo portal.",
    replayed: "Este acesso já foi usado. Abra a venda novamente pelo portal.",
    invalid: "Acesso recusado: a assinatura do portal não confere. Avise o suporte do portal.",
    disabled: "Acesso pelo portal indisponível para esta conta. Fale com o seu supervisor.",
    unavailable: "Não foi possível entrar agora. Tente novamente em instantes.",
    "cross-site": "Acesso recusado.",
    "not-framed": "Este acesso só funciona dentro do portal do parceiro. Abra a venda novamente pelo portal.",
    "sso-off": "O acesso pelo portal não está configurado neste Partner Sales. Avise o suporte do portal.",
  };

type SessionAnswer =
  { ok: true; prefill: Partial<SaleFormValues> } | { ok: false; problem: keyof typeof PROBLEMS };

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
      ? fetch("/api/embed/session", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ token }),
        })
          .then((response) => response.json() as Promise<SessionAnswer>)
          .catch((): SessionAnswer => ({ ok: false, problem: "unavailable" }))
      : Promise.resolve({ ok: false, problem: "not-framed" });
    void exchange.then((answer) => {
      if (answer.ok) {
        setPendingPrefill(answer.prefill);
        router.replace("/embed?status=signed-in");
        return;
      }
      setProblem(PROBLEMS[answer.problem] ?? PROBLEMS.unavailable);
      postToParent(allowedOrigins, { type: "partner-sales:error", code: `token-${answer.problem}` });
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
