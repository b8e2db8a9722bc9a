import "server-only";
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import type { OidcClientAuth } from "@/lib/config/oidc";
import { noteMisconfiguration } from "./oidc-attempt";

type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
type PrivateKeyJwt = Extract<OidcClientAuth, { method: "private_key_jwt" }>;

/** How long a client assertion is good for: it is made for one request, sent at once. */
const ASSERTION_LIFETIME_SECONDS = 60;

/** The assertion's times, widened by `skewSeconds` (the clocks' tolerance) on both sides. */
function assertionTimes(now: Date, skewSeconds: number) {
  const seconds = Math.floor(now.getTime() / 1000);
  return { from: seconds - skewSeconds, until: seconds + ASSERTION_LIFETIME_SECONDS + skewSeconds };
}

/**
 * RFC 7523's client assertion: the app's own JWT, signed with its private key, in place of a secret. `aud` is the
 * token endpoint it is sent to, as a single value: what Entra ID and Okta require, and what Keycloak and every
 * OpenID Certified provider accept (OpenID Connect Core 9). The header names the key the way the IdP looks for it:
 * `kid` (Okta, Keycloak with a JWKS), the certificate's `x5t#S256` and `x5t` (Entra ID). It is dated `skewSeconds`
 * back and valid as long again past its minute, so an IdP whose clock is that far from ours, either way, takes it.
 */
export async function clientAssertion(
  auth: PrivateKeyJwt,
  clientId: string,
  tokenEndpoint: string,
  { skewSeconds, now = new Date() }: { skewSeconds: number; now?: Date },
): Promise<string> {
  const { from, until } = assertionTimes(now, skewSeconds);
  return new SignJWT({ jti: randomUUID() })
    .setProtectedHeader({
      alg: auth.algorithm,
      typ: "JWT",
      ...(auth.keyId ? { kid: auth.keyId } : {}),
      ...(auth.thumbprints ? { "x5t#S256": auth.thumbprints.sha256, x5t: auth.thumbprints.sha1 } : {}),
    })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(tokenEndpoint)
    .setIssuedAt(from)
    .setNotBefore(from)
    .setExpirationTime(until)
    .sign(auth.key);
}

const isTokenRequest = (init?: RequestInit): init is RequestInit & { body: URLSearchParams } =>
  init?.method?.toUpperCase() === "POST" &&
  init.body instanceof URLSearchParams &&
  init.body.has("grant_type");

/**
 * Auth.js's fetch to the IdP, for `private_key_jwt`: its token request (which Auth.js sends as a public client's,
 * with `client_id` alone) gains the assertion, made for the very endpoint it goes to. Auth.js's own
 * private_key_jwt puts the issuer and the token endpoint together in `aud`, which not every IdP takes, and has no
 * way to name a certificate.
 */
export function withClientAssertion(
  auth: PrivateKeyJwt,
  clientId: string,
  skewSeconds: number,
  fetch: Fetch,
): Fetch {
  return async (input, init) => {
    if (!isTokenRequest(init)) return fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const body = new URLSearchParams(init.body);
    body.set("client_id", clientId);
    body.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    try {
      body.set("client_assertion", await clientAssertion(auth, clientId, url, { skewSeconds }));
    } catch (error) {
      // The key or its algorithm will not sign (start-up checks what it can): the set-up, not the IdP or us.
      noteMisconfiguration("client_assertion_unsigned");
      throw error;
    }
    return fetch(input, { ...init, body });
  };
}
