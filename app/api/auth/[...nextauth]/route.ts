import { NextRequest } from "next/server";
import { handlers } from "@/auth";
import { endSessionNamedBy } from "@/lib/dal/session";
import { getConfig } from "@/lib/env";
import { isHttpsRequest } from "@/lib/http/forwarded";
import { apiSecurityHeaders, errorResponse } from "@/lib/http/json";
import { BODY_LIMITS, isJsonContentType, mediaTypeOf, readBoundedBody } from "@/lib/http/read-body";
import { createNonce, documentSecurityHeaders, transportSecurityHeaders } from "@/lib/http/security-headers";
import { log } from "@/lib/log";

const FORM = "application/x-www-form-urlencoded";

/**
 * The proxy does not see these routes, so their answers get their security headers here. Most are JSON or
 * redirects; the few HTML pages Auth.js still renders itself (the sign-out confirmation at GET /api/auth/signout)
 * get the page policy, with a nonce nothing on them carries: they run no script, and their inline style is
 * refused, which leaves a plain but working form. A copy, because a redirect's headers may be immutable.
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

export async function GET(request: NextRequest) {
  return withSecurityHeaders(request, await handlers.GET(request));
}

/**
 * Auth.js reads whatever body it is given. It gets a copy read within the limit instead, and only in the two
 * encodings its endpoints take (forms for sign-in and sign-out, JSON for a session update).
 */
export async function POST(request: NextRequest) {
  const contentType = request.headers.get("content-type");
  if (mediaTypeOf(contentType) !== FORM && !isJsonContentType(contentType)) {
    return errorResponse("unsupported_media_type");
  }
  const body = await readBoundedBody(request, BODY_LIMITS.auth);
  if (!body.ok) return errorResponse(body.code);
  // Sign-out ends the session row before Auth.js clears the cookie: if the database cannot take it, the answer
  // is a 503 and the cookie stays, rather than a cookie cleared here while a copy of it still works elsewhere.
  if (new URL(request.url).pathname.endsWith("/signout")) {
    try {
      await endSessionNamedBy(request.headers.get("cookie"));
    } catch (error) {
      log.error("auth.sign_out_failed", { error });
      return withSecurityHeaders(request, errorResponse("service_unavailable"));
    }
  }
  const bounded = new NextRequest(request.url, {
    method: "POST",
    headers: request.headers,
    body: body.value,
  });
  return withSecurityHeaders(request, await handlers.POST(bounded));
}
