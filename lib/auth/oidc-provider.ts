import "server-only";
import { customFetch } from "next-auth";
import type { OIDCConfig } from "next-auth/providers";
import { OIDC_PROVIDER_ID, type OidcConfig } from "@/lib/config/oidc";
import { idpFetch } from "./oidc-attempt";

export const OIDC_SCOPES = "openid email profile";

/**
 * The partner's IdP for Auth.js: discovery from the issuer, the authorization code flow with PKCE (S256), state and
 * nonce, the client authenticated with its secret (HTTP Basic, from the server only). Auth.js checks the ID token's
 * signature, `iss`, `aud`, `exp` and `nonce`; who the person is for this app is decided in auth.ts's signIn callback.
 */
export function oidcProviders(config: OidcConfig | null): OIDCConfig<Record<string, unknown>>[] {
  if (!config) return [];
  return [
    {
      id: OIDC_PROVIDER_ID,
      name: config.name,
      type: "oidc",
      issuer: config.issuer,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      checks: ["pkce", "state", "nonce"],
      authorization: { params: { scope: OIDC_SCOPES } },
      client: { token_endpoint_auth_method: "client_secret_basic" },
      // A placeholder until the signIn callback has found the agent (Auth.js replaces `id` with a random one anyway).
      profile: (claims) => ({ id: String(claims.sub), role: "agent" }),
      [customFetch]: idpFetch,
    },
  ];
}
