import "server-only";
import { decode } from "next-auth/jwt";

import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from "./cookie-names";

export interface SessionClaims {
  agentId: string;
  /** When the agent signed in (ms since the epoch). */
  authTime: number;
}

interface CookieReader {
  get(name: string): { value: string } | undefined;
  has(name: string): boolean;
}

/**
 * The cookie Auth.js reads for this request, decided as Auth.js decides it (createActionURL): the protocol of
 * AUTH_URL when set, else X-Forwarded-Proto (which Next sets), else https; the portal cookies (auth.ts) always
 * use the plain name.
 */
export function sessionCookieName(options: {
  embedded: boolean;
  authUrl: string | undefined;
  forwardedProto: string | null;
}): string {
  if (options.embedded) return SESSION_COOKIE;
  let protocol = options.forwardedProto ?? "https";
  if (options.authUrl) protocol = new URL(options.authUrl).protocol;
  return protocol.replace(/:$/, "") === "https" ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** Auth.js splits a session cookie over 4 kB into `name.0`, `name.1`, …; ours never is, but a split one reads too. */
function tokenFrom(cookies: CookieReader, name: string): string | undefined {
  const whole = cookies.get(name)?.value;
  if (whole) return whole;
  let token = "";
  for (let chunk = 0; cookies.has(`${name}.${chunk}`); chunk++)
    token += cookies.get(`${name}.${chunk}`)!.value;
  return token || undefined;
}

// Decrypting the session cookie takes several WebCrypto round trips (about 2 ms) on every request; the same
// cookie always decrypts to the same claims, so they are kept by the exact cookie value until it expires.
// A cookie changed by even one character is a different key and is decrypted (and refused) in full.
const MAX_CACHED_SESSIONS = 5_000;
const decoded = new Map<string, { claims: SessionClaims; expiresAt: number }>();

/**
 * The signed-in agent's claims from Auth.js's encrypted session cookie, or null when there is no valid one.
 * Only reads: Auth.js's own `auth()` re-encrypts the cookie on every call and then throws the result away.
 */
export async function readSessionCookie(
  cookies: CookieReader,
  options: { cookieName: string; secret: string; now?: number },
): Promise<SessionClaims | null> {
  const token = tokenFrom(cookies, options.cookieName);
  if (!token) return null;
  const now = options.now ?? Date.now();
  const cached = decoded.get(token);
  if (cached) {
    if (cached.expiresAt > now) return cached.claims;
    decoded.delete(token);
    return null;
  }

  let payload: { sub?: unknown; exp?: unknown; authTime?: unknown } | null;
  try {
    payload = await decode({ token, secret: options.secret, salt: options.cookieName });
  } catch {
    return null; // forged, tampered, expired, or encrypted with another secret
  }
  if (
    typeof payload?.sub !== "string" ||
    !payload.sub ||
    typeof payload.exp !== "number" ||
    payload.exp * 1000 <= now
  )
    return null;
  const claims: SessionClaims = {
    agentId: payload.sub,
    authTime: typeof payload.authTime === "number" ? payload.authTime : 0,
  };
  if (decoded.size >= MAX_CACHED_SESSIONS) decoded.delete(decoded.keys().next().value!);
  decoded.set(token, { claims, expiresAt: payload.exp * 1000 });
  return claims;
}
