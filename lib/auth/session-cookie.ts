import type { NextAuthConfig } from "next-auth";
import type { Config } from "@/lib/config/parse";

const SESSION = "authjs.session-token";

/** Every name the session cookie can have (the proxy's optimistic "is anyone signed in" check). */
export const SESSION_COOKIE_NAMES = [SESSION, `__Host-${SESSION}`] as const;

/**
 * The one decision about Auth.js's cookies, from configuration rather than from each request's headers, so the
 * names Auth.js writes are the names lib/dal reads. Over https (AUTH_URL) they are `__Host-`: Secure, path /, no
 * Domain, so no sibling subdomain can plant or overwrite them (cookie tossing). Inside a partner portal's iframe the
 * app is a third party, so they are also SameSite=None and Partitioned (CHIPS) to be stored and sent at all; that
 * needs Secure, which browsers honour over plain http only on localhost (config refuses anything else).
 */
export function authCookies(config: Pick<Config, "publicUrl" | "embed">) {
  const https = new URL(config.publicUrl).protocol === "https:";
  const embedded = config.embed.allowedOrigins.length > 0;
  const prefix = https ? "__Host-" : "";
  const options = {
    httpOnly: true,
    path: "/",
    sameSite: embedded ? ("none" as const) : ("lax" as const),
    secure: https || embedded,
    ...(embedded ? { partitioned: true } : {}),
  };
  // The OIDC sign-in's checks (PKCE verifier, state, nonce) live for its 15 minutes at the IdP. Set and read in a
  // top-level window: a sign-in through the IdP inside a portal's frame is not offered (the IdP refuses to be framed).
  const check = { ...options, maxAge: 15 * 60 };
  return {
    sessionToken: { name: `${prefix}${SESSION}`, options },
    callbackUrl: { name: `${prefix}authjs.callback-url`, options },
    csrfToken: { name: `${prefix}authjs.csrf-token`, options },
    pkceCodeVerifier: { name: `${prefix}authjs.pkce.code_verifier`, options: check },
    state: { name: `${prefix}authjs.state`, options: check },
    nonce: { name: `${prefix}authjs.nonce`, options: check },
  } satisfies NextAuthConfig["cookies"];
}

export function sessionCookieName(config: Pick<Config, "publicUrl" | "embed">): string {
  return authCookies(config).sessionToken.name;
}
