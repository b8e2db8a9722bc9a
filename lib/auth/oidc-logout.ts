import "server-only";
import { z } from "zod";
import type { OidcConfig } from "@/lib/config/oidc";
import { isHttpsOrLoopback } from "@/lib/config/env-values";
import { log } from "@/lib/log";
import { idpFetch } from "./oidc-attempt";

// Shown on the page right after sign-out: an IdP that does not answer quickly is not offered.
const DISCOVERY_TIMEOUT_MS = 3_000;

const metadataSchema = z.object({ issuer: z.string(), end_session_endpoint: z.string().optional() });

/** `<issuer>/.well-known/openid-configuration`, as OpenID Connect Discovery (and Auth.js) builds it. */
export function discoveryUrl(issuer: string): URL {
  const url = new URL(issuer);
  url.pathname = `${url.pathname}/.well-known/openid-configuration`.replace("//", "/");
  return url;
}

/**
 * RP-initiated logout, where the IdP offers it (`end_session_endpoint` in its discovery): the address that ends the
 * agent's session at the IdP too and comes back to the sign-in page. No ID token is kept to hint with, so the
 * client is named by `client_id`, which the IdP may answer with a confirmation of its own.
 */
export async function idpLogoutUrl(
  oidc: OidcConfig,
  publicUrl: string,
  now = Date.now(),
): Promise<string | null> {
  // Asked on every render of the signed-out page, which anyone may request: the IdP is asked once a minute at most.
  const key = `${oidc.issuer}\0${oidc.clientId}\0${publicUrl}`;
  if (cached?.key === key && cached.until > now) return cached.url;
  const url = await askIdp(oidc, publicUrl);
  cached = { key, url, until: now + CACHE_MS };
  return url;
}

let cached: { key: string; url: string | null; until: number } | undefined;
const CACHE_MS = 60_000;

async function askIdp(oidc: OidcConfig, publicUrl: string): Promise<string | null> {
  try {
    const response = await idpFetch(discoveryUrl(oidc.issuer), {
      headers: { accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
    });
    if (!response.ok) return null;
    const metadata = metadataSchema.parse(await response.json());
    if (new URL(metadata.issuer).href !== new URL(oidc.issuer).href || !metadata.end_session_endpoint)
      return null;
    const endpoint = new URL(metadata.end_session_endpoint);
    if (!isHttpsOrLoopback(endpoint)) return null;
    endpoint.searchParams.set("client_id", oidc.clientId);
    endpoint.searchParams.set("post_logout_redirect_uri", new URL("/sign-in", publicUrl).href);
    return endpoint.href;
  } catch (error) {
    log.warn("auth.oidc_logout_unavailable", { error });
    return null;
  }
}
