import type { OidcConfig } from "@/lib/config/oidc";

/** An OIDC set-up as parseOidc returns it with the defaults (a Keycloak realm, HTTP Basic), `changes` over it. */
export function oidcConfig(changes: Partial<OidcConfig> = {}): OidcConfig {
  return {
    issuer: "https://login.parceira.example/realms/atendimento",
    clientId: "partner-sales",
    clientAuth: { method: "client_secret_basic", secret: "never-sent-here" },
    name: "Keycloak",
    autoCreate: true,
    allowedEmailDomains: [],
    adoptPasswordAccounts: false,
    roleClaim: undefined,
    supervisorValues: [],
    emailClaim: { text: "email", steps: ["email"] },
    trustUnverifiedEmails: false,
    clockToleranceSeconds: 60,
    ...changes,
  };
}
