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
  return {
    sessionToken: { name: `${prefix}${SESSION}`, options },
    callbackUrl: { name: `${prefix}authjs.callback-url`, options },
    csrfToken: { name: `${prefix}authjs.csrf-token`, options },
  } satisfies NextAuthConfig["cookies"];
}

export function sessionCookieName(config: Pick<Config, "publicUrl" | "embed">): string {
  return authCookies(config).sessionToken.name;
}
