import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import { EmbedProblem } from "@/components/embed/embed-problem";
import { PortalTokenSignIn } from "@/components/embed/portal-token-sign-in";
import { EmbeddedSaleForm } from "@/components/embed/embedded-sale-form";
import { embedSettings } from "@/lib/dal/embed";
import { listPlans } from "@/lib/dal/plans";
import { verifySession } from "@/lib/dal/session";
import { appearanceStylesheetHref, parseAppearance, type AppearanceWarning } from "@/lib/embed-appearance";
import { log } from "@/lib/log";
import { submitSaleAction } from "@/lib/actions/sales";
import { embedProblem } from "@/lib/errors/embed";

export const metadata: Metadata = { title: "Nova venda" };

type Query = Awaited<PageProps<"/embed">["searchParams"]>;

export default async function EmbedPage({ searchParams }: PageProps<"/embed">) {
  const query = await searchParams;
  const { appearance, warnings } = parseAppearance(query);
  const stylesheet = appearanceStylesheetHref(appearance);
  return (
    <>
      {/* A stylesheet of 'self', not a style element: after the token sign-in the form comes by a client-side
          navigation, whose payload would carry another response's CSP nonce, which this document refuses. */}
      {stylesheet ? <link rel="stylesheet" href={stylesheet} precedence="embed-appearance" /> : null}
      <EmbedState query={query} warnings={warnings} />
    </>
  );
}

async function EmbedState({
  query: { token, status, "sign-in": signIn },
  warnings,
}: {
  query: Query;
  warnings: AppearanceWarning[];
}) {
  const { allowedOrigins } = embedSettings();
  // A token in an address is already in the browser's history and in proxy and server logs: it is never
  // used, and the portal is told why (embed.js hands tokens over by postMessage).
  if (token !== undefined) {
    log.warn("embed.token_in_url_refused");
    return (
      <EmbedProblem
        problem={embedProblem("token_in_url")}
        allowedOrigins={allowedOrigins}
        warnings={warnings}
        clearToken
      />
    );
  }
  // Even over a session of its own: the portal says which agent is at this screen now.
  if (signIn === "portal") return <PortalTokenSignIn allowedOrigins={allowedOrigins} warnings={warnings} />;

  const agent = await verifySession();
  // The token sign-in has just answered yes, yet no session came with this request: the browser did not keep
  // the cookie (third-party cookies blocked).
  if (!agent && status === "signed-in") {
    return (
      <EmbedProblem
        problem={embedProblem("session_cookie_blocked")}
        allowedOrigins={allowedOrigins}
        warnings={warnings}
        action={
          <a href="/" target="_blank" rel="noopener" className="underline">
            Abrir o Partner Sales em uma nova aba
          </a>
        }
      />
    );
  }
  if (!agent) {
    return (
      <EmbedProblem
        problem={embedProblem("session_missing")}
        allowedOrigins={allowedOrigins}
        warnings={warnings}
        action={
          // The frame never asks for a password or a second factor: a session here is the portal's to open. A
          // sign-in of the app's own opens in a tab of its own.
          <a href="/sign-in" target="_blank" rel="noopener" className="underline">
            Entrar no Partner Sales em uma nova aba
          </a>
        }
      />
    );
  }

  return (
    <EmbeddedSaleForm
      allowedOrigins={allowedOrigins}
      warnings={warnings}
      plans={listPlans()}
      initialSubmissionId={randomUUID()}
      saleAction={submitSaleAction}
    />
  );
}
