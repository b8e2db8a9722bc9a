import "server-only";
import { customFetch } from "next-auth";
import type { OIDCConfig } from "next-auth/providers";
import { clockTolerance } from "oauth4webapi";
import { OIDC_PROVIDER_ID, type OidcConfig } from "@/lib/config/oidc";
import { idpFetch } from "./oidc-attempt";
import { withClientAssertion } from "./oidc-client-auth";

export const OIDC_SCOPES = "openid email profile";

/**
 * How the client proves itself at the token endpoint (OIDC_CLIENT_AUTH_METHOD), always from the server: its secret
 * in HTTP Basic or in the form, or a JWT signed with its private key (lib/auth/oidc-client-auth.ts, added to the
 * request on its way out, so Auth.js sends that one as a public client would).
 */
function clientAuthentication(config: OidcConfig) {
  const { clientAuth } = config;
  if (clientAuth.method === "private_key_jwt") {
    return {
      method: "none" as const,
      clientSecret: undefined,
      fetch: withClientAssertion(clientAuth, config.clientId, config.clockToleranceSeconds, idpFetch),
    };
  }
  return { method: clientAuth.method, clientSecret: clientAuth.secret, fetch: idpFetch };
}

/**
 * The partner's IdP for Auth.js: discovery from the issuer, the authorization code flow with PKCE (S256), state and
 * nonce, the client authenticated from the server only. Auth.js checks the ID token's signature, `iss`, `aud`,
 * `exp` and `nonce`, its times within OIDC_CLOCK_TOLERANCE_SECONDS of our clock; who the person is for this app is
 * decided in auth.ts's signIn callback.
 */
export function oidcProviders(config: OidcConfig | null): OIDCConfig<Record<string, unknown>>[] {
  if (!config) return [];
  const authentication = clientAuthentication(config);
  return [
    {
      id: OIDC_PROVIDER_ID,
      name: config.name,
      type: "oidc",
      issuer: config.issuer,
      clientId: config.clientId,
      clientSecret: authentication.clientSecret,
      checks: ["pkce", "state", "nonce"],
      authorization: { params: { scope: OIDC_SCOPES } },
      // oauth4webapi reads the tolerance off the client (Auth.js copies this object, symbols included).
      client: {
        token_endpoint_auth_method: authentication.method,
        [clockTolerance]: config.clockToleranceSeconds,
      },
      // A placeholder until the signIn callback has found the agent (Auth.js replaces `id` with a random one anyway).
      profile: (claims) => ({ id: String(claims.sub), role: "agent" }),
      [customFetch]: authentication.fetch,
    },
  ];
}
