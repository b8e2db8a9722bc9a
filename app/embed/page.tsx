import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import { headers } from "next/headers";
import { EmbedTokenSignIn } from "@/components/embed/embed-token-sign-in";
import { EmbeddedSaleForm } from "@/components/embed/embedded-sale-form";
import { embedSettings } from "@/lib/dal/embed";
import { listPlans } from "@/lib/dal/plans";
import { userMessageFor } from "@/lib/errors";
import { verifySession } from "@/lib/dal/session";
import { submitSaleAction } from "../(sales)/actions";

export const metadata: Metadata = { title: "Nova venda" };

export default async function EmbedPage({ searchParams }: PageProps<"/embed">) {
  const { token, status } = await searchParams;
  const { allowedOrigins } = embedSettings();
  // A token is exchanged only inside an allowed portal's frame: a link opened at the top level must not swap
  // whoever is signed in in this browser for the token's agent.
  const framed = (await headers()).get("sec-fetch-dest") === "iframe";
  if (typeof token === "string" && token && (!framed || allowedOrigins.length === 0)) {
    return (
      <div className="p-3 text-sm">
        <p role="alert">{userMessageFor("token_not_framed")}</p>
      </div>
    );
  }
  if (typeof token === "string" && token) {
    return (
      <div className="p-3">
        <EmbedTokenSignIn token={token} allowedOrigins={allowedOrigins} />
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
