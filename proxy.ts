import { NextResponse, type NextRequest } from "next/server";
import { SESSION_COOKIE_NAMES } from "@/lib/auth/session-cookie";
import { getConfig } from "@/lib/env";
import { frameAncestors } from "@/lib/framing";
import { errorResponse } from "@/lib/http/json";
import { BODY_LIMITS, declaresTooLarge } from "@/lib/http/read-body";

// Optimistic only: no session cookie at all means "go sign in". The real check (signature, expiry, a disabled
// agent) happens in lib/dal on every page, action and route handler.
const SIGNED_IN_AREAS = [/^\/$/, /^\/sales(\/|$)/];

export function proxy(request: NextRequest) {
  // What posts to a page is a server action, whose body browsers always send with its length: a body declared
  // larger than any action takes is refused unread, and one of undeclared length (chunked) is refused too.
  if (declaresTooLarge(request.headers, BODY_LIMITS.serverAction)) return errorResponse("payload_too_large");
  if (request.headers.has("transfer-encoding")) return errorResponse("length_required");
  const { pathname, search } = request.nextUrl;
  const needsSession = SIGNED_IN_AREAS.some((area) => area.test(pathname));
  let response: NextResponse;
  if (needsSession && !SESSION_COOKIE_NAMES.some((name) => request.cookies.has(name))) {
    const signIn = new URL("/sign-in", request.url);
    if (pathname !== "/" || search) signIn.searchParams.set("callbackUrl", `${pathname}${search}`);
    response = NextResponse.redirect(signIn);
  } else {
    response = NextResponse.next();
  }
  // Set here, not in next.config.mjs, because the allowed portals are configuration read at run time.
  response.headers.set("Content-Security-Policy", frameAncestors(getConfig().embed.allowedOrigins));
  return response;
}

export const config = {
  // Not static files, and not our JSON routes and Auth.js's, which read their bodies within their own limits as
  // the bytes arrive (Next.js buffers a copy of every body the proxy sees) and set the framing policy themselves.
  // Everything else, any 404 included, still passes here.
  matcher: ["/((?!_next/static|_next/image|api/(?:sales|health|embed/session)$|api/auth/).*)"],
};
