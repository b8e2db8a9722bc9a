import { NextResponse, type NextRequest } from "next/server";
import { SESSION_COOKIE_NAMES } from "@/lib/auth/session-cookie";
import { getConfig } from "@/lib/env";
import { isHttpsRequest } from "@/lib/http/forwarded";
import { errorResponse } from "@/lib/http/json";
import { BODY_LIMITS, declaresTooLarge } from "@/lib/http/read-body";
import { crossSiteRefusal } from "@/lib/http/same-origin";
import { createNonce, documentSecurityHeaders, transportSecurityHeaders } from "@/lib/http/security-headers";
import type { ErrorCode } from "@/lib/errors";
import { AUTH_JS_REDIRECT_HEADER } from "@/lib/http/auth-js-header";

// Optimistic only: no session cookie at all means "go sign in". The real check (the cookie, its live session row,
// the agent) happens in lib/dal on every page, action and route handler.
const SIGNED_IN_AREAS = [/^\/$/, /^\/sales(\/|$)/, /^\/dashboard(\/|$)/, /^\/account(\/|$)/];

function withTransportHeaders(response: Response, https: boolean): Response {
  for (const [name, value] of Object.entries(transportSecurityHeaders(https))) {
    response.headers.set(name, value);
  }
  return response;
}

function refuse(code: ErrorCode, https: boolean): Response {
  return withTransportHeaders(errorResponse(code), https);
}

export async function proxy(request: NextRequest) {
  const https = isHttpsRequest(request.headers);
  // What posts to a page is a server action, whose body browsers always send with its length: a body declared
  // larger than any action takes is refused unread, and one of undeclared length (chunked) is refused too.
  if (declaresTooLarge(request.headers, BODY_LIMITS.serverAction)) return refuse("payload_too_large", https);
  if (request.headers.has("transfer-encoding")) return refuse("length_required", https);
  // A server action another site made a browser post: refused here with the routes' answer and log line (Next.js
  // would refuse it too, without saying who tried).
  if (request.method === "POST" && request.headers.has("next-action")) {
    const crossSite = await crossSiteRefusal(request);
    if (crossSite) return withTransportHeaders(crossSite, https);
  }
  // Set here, not in next.config.mjs: the allowed portals are read at run time, and the nonce is per response.
  const security = documentSecurityHeaders({
    nonce: createNonce(),
    allowedOrigins: getConfig().embed.allowedOrigins,
    https,
    // Replaced when Next.js builds: a property of the build, not configuration.
    development: process.env.NODE_ENV === "development",
  });
  const { pathname, search } = request.nextUrl;
  const needsSession = SIGNED_IN_AREAS.some((area) => area.test(pathname));
  let response: NextResponse;
  if (needsSession && !SESSION_COOKIE_NAMES.some((name) => request.cookies.has(name))) {
    const signIn = new URL("/sign-in", request.url);
    if (pathname !== "/" || search) signIn.searchParams.set("callbackUrl", `${pathname}${search}`);
    response = NextResponse.redirect(signIn);
  } else {
    // Next.js reads the nonce from the request's policy and stamps it on its own scripts: every page renders
    // per request for that (app/layout.tsx). Whatever policy the client sent is replaced.
    const forwarded = new Headers(request.headers);
    forwarded.set("Content-Security-Policy", security["Content-Security-Policy"]);
    // Auth.js's client header, which would turn a server action's signIn() refusal into a silent success.
    forwarded.delete(AUTH_JS_REDIRECT_HEADER);
    response = NextResponse.next({ request: { headers: forwarded } });
  }
  for (const [name, value] of Object.entries(security)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Not static files (next.config.mjs gives them their headers), and not our JSON routes and Auth.js's, which
  // read their bodies within their own limits as the bytes arrive (Next.js buffers a copy of every body the proxy
  // sees) and set their security headers themselves; nor the health checks and metrics, polled every few seconds,
  // which read no body; nor the integrations' API (/api/v1), whose routes check their keys and set their headers.
  // Everything else, any 404 included, still passes here.
  matcher: [
    "/((?!_next/static|_next/image|embed\\.(?:js|d\\.ts)$|api/(?:sales|health|health/live|metrics|embed/session)$|api/auth/|api/v1(?:/|$)).*)",
  ],
};
