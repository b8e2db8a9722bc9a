import "server-only";
import { decode, getToken } from "next-auth/jwt";

export interface SessionClaims {
  agentId: string;
  /** The session row (lib/db/queries/sessions.ts) that must still be live. */
  sessionId: string;
}

// Decrypting the session cookie takes several WebCrypto round trips (about 2 ms) on every request; the same
// cookie, under the same name and secret, always decrypts to the same claims, so they are kept by all three until
// the token expires. A cookie changed by even one character is another key and is decrypted (and refused) in full.
const MAX_CACHED_SESSIONS = 5_000;
// Auth.js's decode() accepts a token up to 15 s past its expiry (jose's clockTolerance); so does the cache.
const CLOCK_TOLERANCE_MS = 15_000;
const decoded = new Map<string, { claims: SessionClaims; expiresAt: number }>();

/**
 * The signed-in agent's claims from Auth.js's encrypted session cookie; null when there is none, "unreadable" when
 * there is one that yields none.
 * Only reads: Auth.js's own `auth()` re-encrypts the cookie on every call and then throws the result away.
 * The token is taken from the Cookie header by Auth.js's own parser and chunk joining (getToken, given no other
 * header, so its `Authorization: Bearer` fallback never applies) and decrypted by Auth.js's decode().
 */
export async function readSessionCookie(
  cookieHeader: string | null,
  options: { cookieName: string; secret: string; now?: number },
): Promise<SessionClaims | "unreadable" | null> {
  const { cookieName, secret } = options;
  if (!cookieHeader) return null;
  const token = await getToken({
    req: { headers: new Headers({ cookie: cookieHeader }) },
    cookieName,
    secureCookie: cookieName.startsWith("__"),
    secret,
    raw: true,
  });
  if (!token) return null;
  // From here on there is a session cookie: one that yields no claims is "unreadable" (the security log says so).
  const now = options.now ?? Date.now();
  const key = `${secret}\0${cookieName}\0${token}`;
  const cached = decoded.get(key);
  if (cached) {
    if (cached.expiresAt > now) return cached.claims;
    decoded.delete(key);
    return "unreadable";
  }

  let payload: { sub?: unknown; exp?: unknown; sid?: unknown } | null;
  try {
    payload = await decode({ token, secret, salt: cookieName });
  } catch {
    return "unreadable"; // forged, tampered, expired, or encrypted with another secret
  }
  // A cookie from before sessions were recorded has no `sid`: it is refused like any other dead session.
  if (typeof payload?.sub !== "string" || !payload.sub || typeof payload.sid !== "string")
    return "unreadable";
  const claims: SessionClaims = { agentId: payload.sub, sessionId: payload.sid };
  if (typeof payload.exp === "number") {
    if (decoded.size >= MAX_CACHED_SESSIONS) decoded.delete(decoded.keys().next().value!);
    decoded.set(key, { claims, expiresAt: payload.exp * 1000 + CLOCK_TOLERANCE_MS });
  }
  return claims;
}
