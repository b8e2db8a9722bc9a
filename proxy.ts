import { NextResponse, type NextRequest } from "next/server";

// Optimistic only: no session cookie at all means "go sign in". The real check (signature, expiry, a disabled
// agent) happens in lib/dal on every page, action and route handler.
const SESSION_COOKIES = ["authjs.session-token", "__Secure-authjs.session-token"];

export function proxy(request: NextRequest) {
  if (SESSION_COOKIES.some((name) => request.cookies.has(name))) return NextResponse.next();
  const signIn = new URL("/sign-in", request.url);
  const { pathname, search } = request.nextUrl;
  if (pathname !== "/" || search) signIn.searchParams.set("callbackUrl", `${pathname}${search}`);
  return NextResponse.redirect(signIn);
}

export const config = {
  matcher: ["/", "/sales/:path*"],
};
