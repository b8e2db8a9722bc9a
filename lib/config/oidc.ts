import { emailDomainsIn } from "./email-domains";
import { text, type RawEnv } from "./env-values";

/** In the redirect URI the IdP registers: `<AUTH_URL>/api/auth/callback/oidc`. */
export const OIDC_PROVIDER_ID = "oidc";
export const OIDC_CALLBACK_PATH = `/api/auth/callback/${OIDC_PROVIDER_ID}`;

/** Sign-in with the partner's own OpenID Connect provider (Keycloak, Entra ID, Okta, Google Workspace…). */
export interface OidcConfig {
  /** Exactly as configured: discovery reads `<issuer>/.well-known/openid-configuration`, whose `issuer` must match. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button reads "Entrar com <name>". */
  name: string;
  /** The first sign-in of someone unknown creates their agent; off, an operator must have added the e-mail. */
  autoCreate: boolean;
  /** Lower-case domains whose e-mails may sign in; empty = any. */
  allowedEmailDomains: string[];
  /**
   * OIDC_ADOPT_PASSWORD_ACCOUNTS (off unless turned on, for partners moving from passwords to SSO): the first sign-in
   * of someone unknown, with a verified e-mail in an allowed domain, takes the password account with that e-mail when
   * it has no other identity. The one case where an e-mail leads to an existing account.
   */
  adoptPasswordAccounts: boolean;
  /** The claim whose value(s) make a supervisor: a name, or a dotted path (`realm_access.roles`). */
  roleClaim: string | undefined;
  supervisorValues: string[];
}

/** Names the variable, like ConfigError; its message never holds the client secret. */
export class OidcConfigError extends Error {
  override readonly name = "OidcConfigError";
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

const NAME_MAX_LENGTH = 40;
const VARIABLES = [
  "OIDC_ISSUER",
  "OIDC_CLIENT_ID",
  "OIDC_CLIENT_SECRET",
  "OIDC_NAME",
  "OIDC_AUTO_CREATE",
  "OIDC_ALLOWED_EMAIL_DOMAINS",
  "OIDC_ROLE_CLAIM",
  "OIDC_SUPERVISOR_VALUES",
  "OIDC_ADOPT_PASSWORD_ACCOUNTS",
] as const;

/** `on`/`off` (also true/false, yes/no, 1/0), any letter case. */
export function parseSwitch(env: RawEnv, name: string, fallback: boolean): boolean {
  const value = text(env, name);
  if (value === undefined) return fallback;
  const lower = value.toLowerCase();
  if (["on", "true", "yes", "1"].includes(lower)) return true;
  if (["off", "false", "no", "0"].includes(lower)) return false;
  throw new OidcConfigError(name, `is "on" or "off" (got "${value}")`);
}

function list(env: RawEnv, name: string): string[] {
  return (text(env, name) ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}

function issuerFrom(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OidcConfigError("OIDC_ISSUER", `must be an absolute https URL (got "${value}")`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new OidcConfigError("OIDC_ISSUER", `must use https (got "${url.protocol}")`);
  }
  if (url.username || url.password) throw new OidcConfigError("OIDC_ISSUER", "must not carry credentials");
  // OpenID Connect Discovery: an issuer identifier has no query or fragment.
  if (url.search || url.hash || value.includes("#")) {
    throw new OidcConfigError("OIDC_ISSUER", "must not have a query or fragment");
  }
  return value;
}

function domainsFrom(env: RawEnv): string[] {
  return emailDomainsIn(text(env, "OIDC_ALLOWED_EMAIL_DOMAINS"), (entry) => {
    throw new OidcConfigError(
      "OIDC_ALLOWED_EMAIL_DOMAINS",
      `"${entry}" is not a domain (list them exactly, comma-separated: parceira.com.br,vendas.parceira.com.br)`,
    );
  });
}

/** Null when OIDC_ISSUER is unset (no other OIDC_* may then be set: a half-done set-up is a mistake). */
export function parseOidc(env: RawEnv): OidcConfig | null {
  const issuer = text(env, "OIDC_ISSUER");
  if (!issuer) {
    const stray = VARIABLES.find((name) => text(env, name) !== undefined);
    if (stray) throw new OidcConfigError(stray, "is set but OIDC_ISSUER is not (set both, or neither)");
    return null;
  }
  const required = (name: string) => {
    const value = text(env, name);
    if (!value) throw new OidcConfigError(name, "is required when OIDC_ISSUER is set");
    return value;
  };
  const name = text(env, "OIDC_NAME") ?? "SSO";
  if (name.length > NAME_MAX_LENGTH || /[\u0000-\u001f\u007f-\u009f]/.test(name)) {
    throw new OidcConfigError("OIDC_NAME", `is a short label of at most ${NAME_MAX_LENGTH} characters`);
  }
  const roleClaim = text(env, "OIDC_ROLE_CLAIM");
  const supervisorValues = list(env, "OIDC_SUPERVISOR_VALUES");
  if (roleClaim && supervisorValues.length === 0) {
    throw new OidcConfigError("OIDC_SUPERVISOR_VALUES", "is required with OIDC_ROLE_CLAIM (which values?)");
  }
  if (!roleClaim && supervisorValues.length > 0) {
    throw new OidcConfigError("OIDC_ROLE_CLAIM", "is required with OIDC_SUPERVISOR_VALUES (which claim?)");
  }
  const allowedEmailDomains = domainsFrom(env);
  const adoptPasswordAccounts = parseSwitch(env, "OIDC_ADOPT_PASSWORD_ACCOUNTS", false);
  // Adoption trusts the IdP's word on an e-mail only in the partner's own domains, so they must be named.
  if (adoptPasswordAccounts && allowedEmailDomains.length === 0) {
    throw new OidcConfigError(
      "OIDC_ADOPT_PASSWORD_ACCOUNTS",
      "needs OIDC_ALLOWED_EMAIL_DOMAINS: only accounts in the partner's own domains may be adopted",
    );
  }
  return {
    issuer: issuerFrom(issuer),
    clientId: required("OIDC_CLIENT_ID"),
    clientSecret: required("OIDC_CLIENT_SECRET"),
    name,
    autoCreate: parseSwitch(env, "OIDC_AUTO_CREATE", true),
    allowedEmailDomains,
    adoptPasswordAccounts,
    roleClaim,
    supervisorValues,
  };
}
