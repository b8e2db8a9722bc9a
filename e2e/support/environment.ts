// Shared by playwright.config.ts and the specs: the e2e app and sandbox run on their own ports and data dir,
// so a developer's `npm start` on 3000/4010 is left alone. E2E_APP_PORT and E2E_SANDBOX_PORT move them, for a second
// checkout running its own specs on the same machine.
export const E2E_PORTS = {
  app: Number(process.env.E2E_APP_PORT ?? 3210),
  sandbox: Number(process.env.E2E_SANDBOX_PORT ?? 4210),
} as const;
export const E2E_DATA_DIR = ".data/e2e";
export const SANDBOX_URL = `http://127.0.0.1:${E2E_PORTS.sandbox}`;
export const DEMO_AGENT = { email: "agente@demo.local", password: "demo1234", name: "Agente Demo" } as const;
/** The e2e app's and sandbox's log lines, appended by `npm start` (LOG_FILE) so specs can read them. */
export const E2E_LOG_FILE = ".data/e2e-logs/app.log";
export const E2E_UPSTREAM_TIMEOUT_MS = 3_000;

/** A stand-in partner portal on another origin (127.0.0.1 vs localhost): one allowed to frame the app, one not. */
export const PORTAL_PORTS = { allowed: 3299, other: 3298 } as const;
export const ALLOWED_PORTAL = `http://127.0.0.1:${PORTAL_PORTS.allowed}`;
/** Bearer token for health details (METRICS_TOKEN). */
export const E2E_METRICS_TOKEN = "e2e-metrics-token-0123456789abcdef01234";

/**
 * The partner's identity provider for the OIDC sign-in: oidc-provider on 127.0.0.1 (e2e/support/identity-provider.ts),
 * started by e2e/oidc.spec.ts with app instances of its own; the shared e2e app has no OIDC.
 */
export const IDP = {
  port: 4211,
  clientId: "partner-sales-e2e",
  clientSecret: "e2e-oidc-client-secret-3b9f0c1d7a5e",
  name: "Login da Parceira",
  supervisorRole: "supervisor-vendas",
  allowedDomain: "parceira.example",
} as const;
export const IDP_ISSUER = `http://127.0.0.1:${IDP.port}`;

/**
 * Sign-in by password only: every OIDC_* a developer's shell may hold is blanked (one left set without OIDC_ISSUER
 * stops the start-up). An instance that wants its IdP sets its own after this.
 */
export const PASSWORDS_ONLY = {
  OIDC_ISSUER: "",
  OIDC_CLIENT_ID: "",
  OIDC_CLIENT_SECRET: "",
  OIDC_NAME: "",
  OIDC_AUTO_CREATE: "",
  OIDC_ALLOWED_EMAIL_DOMAINS: "",
  OIDC_ROLE_CLAIM: "",
  OIDC_SUPERVISOR_VALUES: "",
  PASSWORD_SIGN_IN: "",
} as const;
