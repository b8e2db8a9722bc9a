import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import { EmbedProblem } from "@/components/embed/embed-problem";
import { EmbedTokenSignIn } from "@/components/embed/embed-token-sign-in";
import { EmbeddedSaleForm } from "@/components/embed/embedded-sale-form";
import { embedSettings } from "@/lib/dal/embed";
import { listPlans } from "@/lib/dal/plans";
import { verifySession } from "@/lib/dal/session";
import { log } from "@/lib/log";
import { submitSaleAction } from "../(sales)/actions";

export const metadata: Metadata = { title: "Nova venda" };

export default async function EmbedPage({ searchParams }: PageProps<"/embed">) {
  const { token, status, "sign-in": signIn } = await searchParams;
  const { allowedOrigins } = embedSettings();
  // A token in an address is already in the browser's history and in proxy and server logs: it is never
  // used, and the portal is told why (embed.js hands tokens over by postMessage).
  if (token !== undefined) {
    log.warn("embed.token_in_url_refused");
    return (
      <div className="p-3">
        <EmbedProblem code="token_in_url" allowedOrigins={allowedOrigins} clearAddress />
      </div>
    );
  }
  // Even over a session of its own: the portal says which agent is at this screen now.
  if (signIn === "portal") {
    return (
      <div className="p-3">
        <EmbedTokenSignIn allowedOrigins={allowedOrigins} />
      </div>
    );
  }

  const agent = await verifySession();
  if (!agent) {
    return (
      <div className="space-y-2 p-3 text-sm">
        <h1 className="text-base font-semibold">Nova venda</h1>
        {status === "signed-in" ? (
          <p role="alert">
            Seu navegador não guardou a sessão dentro do portal (cookies de terceiros bloqueados).{" "}
            <a href="/" target="_blank" rel="noopener" className="font-medium text-brand-700 underline">
              Abrir o Partner Sales em uma nova aba
            </a>
            .
          </p>
        ) : (
          <p>
            Sessão não iniciada.{" "}
            <a href="/sign-in?callbackUrl=%2Fembed" className="font-medium text-brand-700 underline">
              Entrar
            </a>{" "}
            ou abra a venda novamente pelo portal.
          </p>
        )}
      </div>
    );
  }

  return (
    <>
      <h1 className="sr-only">Nova venda</h1>
      <EmbeddedSaleForm
        allowedOrigins={allowedOrigins}
        plans={listPlans()}
        initialSubmissionId={randomUUID()}
        submitSale={submitSaleAction}
      />
    </>
  );
}
