import { NextRequest } from "next/server";
import { handlers } from "@/auth";
import { withOidcAttempt, type OidcStage } from "@/lib/auth/oidc-attempt";
import { OIDC_CALLBACK_PATH, OIDC_PROVIDER_ID } from "@/lib/config/oidc";
import { signInErrorPath } from "@/lib/errors/sign-in";
import { endSessionNamedBy } from "@/lib/dal/session";
import { getConfig } from "@/lib/env";
import { isHttpsRequest } from "@/lib/http/forwarded";
import { crossSiteRefusal } from "@/lib/http/same-origin";
import { apiSecurityHeaders, errorResponse } from "@/lib/http/json";
import { BODY_LIMITS, isJsonContentType, mediaTypeOf, readBoundedBody } from "@/lib/http/read-body";
import { createNonce, documentSecurityHeaders, transportSecurityHeaders } from "@/lib/http/security-headers";
import { log } from "@/lib/log";

const FORM = "application/x-www-form-urlencoded";

/**
 * The proxy does not see these routes, so their answers get their security headers here. They are JSON or
 * redirects (auth.ts sends each page Auth.js has to one of the app's); an HTML page Auth.js might still render
 * gets the page policy, with a nonce nothing on it carries: it runs no script, and its inline style is refused. A copy, because a redirect's headers may be immutable.
 */
function withSecurityHeaders(request: NextRequest, response: Response): Response {
  const secured = new Response(response.body, response);
  const https = isHttpsRequest(request.headers);
  const headers =
    mediaTypeOf(response.headers.get("content-type")) === "text/html"
      ? documentSecurityHeaders({
          nonce: createNonce(),
          allowedOrigins: getConfig().embed.allowedOrigins,
          https,
        })
      : { ...apiSecurityHeaders(), ...transportSecurityHeaders(https) };
  for (const [name, value] of Object.entries(headers)) secured.headers.set(name, value);
  return secured;
}

const OIDC_STEPS: Readonly<Record<string, OidcStage>> = {
  [`/api/auth/signin/${OIDC_PROVIDER_ID}`]: "start",
  [OIDC_CALLBACK_PATH]: "callback",
};

/**
 * Auth.js, and for the OIDC steps the reason of a failure: back to the sign-in page with a code that says what
 * happened (IdP unreachable, cancelled, state mismatch…) instead of the `?error=Configuration` that hides it.
 */
async function authResponse(request: NextRequest, handler: (request: NextRequest) => Promise<Response>) {
  const url = new URL(request.url);
  const stage = OIDC_STEPS[url.pathname];
  if (!stage) return handler(request);
  // The IdP answers in the query, or with a form post (response_mode=form_post; its body is already bounded).
  const answer =
    request.method === "POST" && stage === "callback"
      ? new URLSearchParams(await request.clone().text())
      : url.searchParams;
  const attempt = await withOidcAttempt(stage, () => handler(request), {
    cookie: request.headers.get("cookie"),
    idpError: answer.get("error"),
    state: answer.get("state"),
  });
  if (attempt.ok) return attempt.value;
  return Response.redirect(new URL(signInErrorPath(attempt.failure), getConfig().publicUrl), 302);
}

export async function GET(request: NextRequest) {
  return withSecurityHeaders(request, await authResponse(request, handlers.GET));
}

/**
 * Auth.js reads whatever body it is given. It gets a copy read within the limit instead, and only in the two
 * encodings its endpoints take (forms for sign-in and sign-out, JSON for a session update).
 */
export async function POST(request: NextRequest) {
  // Auth.js checks its CSRF token, but only after our own sign-out step below has ended the session: another site's
  // form must not get that far (with embedding on, the session cookie goes along with cross-site posts). The IdP's
  // callback is the exception: an IdP answering with a form post (response_mode=form_post) is another site, and
  // state, PKCE and nonce are what hold that request.
  const crossSite =
    new URL(request.url).pathname === OIDC_CALLBACK_PATH ? null : await crossSiteRefusal(request);
  if (crossSite) return withSecurityHeaders(request, crossSite);
  const contentType = request.headers.get("content-type");
  if (mediaTypeOf(contentType) !== FORM && !isJsonContentType(contentType)) {
    return errorResponse("unsupported_media_type");
  }
  const { pathname, origin } = new URL(request.url);
  const passwordPaths = ["/api/auth/callback/credentials", "/api/auth/callback/sign-in-steps"];
  if (passwordPaths.includes(pathname) && !getConfig().passwordSignIn) {
    return withSecurityHeaders(request, errorResponse("password_sign_in_off"));
  }
  const body = await readBoundedBody(request, BODY_LIMITS.auth);
  if (!body.ok) return errorResponse(body.code);
  // Sign-out ends the session row before Auth.js clears the cookie: if the database cannot take it, the answer
  // is a 503 and the cookie stays, rather than a cookie cleared here while a copy of it still works elsewhere.
  if (pathname.endsWith("/signout")) {
    try {
      await endSessionNamedBy(request.headers.get("cookie"), "signed_out");
    } catch (error) {
      log.error("auth.sign_out_failed", { error });
      return withSecurityHeaders(request, errorResponse("service_unavailable"));
    }
  }
  // Auth.js copies a sign-in's query into the IdP's authorization request, over its own parameters: none is taken.
  const url = OIDC_STEPS[pathname] === "start" ? `${origin}${pathname}` : request.url;
  const bounded = new NextRequest(url, { method: "POST", headers: request.headers, body: body.value });
  return withSecurityHeaders(request, await authResponse(bounded, handlers.POST));
}
