import { createHash, createPrivateKey, X509Certificate, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseClaimPath, type ClaimPath } from "./claim-path";
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
  /** How the app proves to the token endpoint that it is this client (OIDC_CLIENT_AUTH_METHOD). */
  clientAuth: OidcClientAuth;
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
  /** The claim whose value(s) make a supervisor: a name, or a path (`realm_access.roles`, lib/config/claim-path.ts). */
  roleClaim: ClaimPath | undefined;
  supervisorValues: string[];
  /** The claim that holds the person's e-mail (OIDC_EMAIL_CLAIM): `email`, or e.g. `preferred_username`, `upn`. */
  emailClaim: ClaimPath;
  /**
   * OIDC_TRUST_UNVERIFIED_EMAILS names this issuer: its e-mails count as verified without `email_verified` (ADFS,
   * Entra without `xms_edov`, an e-mail in `upn`). An explicit `email_verified: false` is still refused.
   */
  trustUnverifiedEmails: boolean;
  /** How far the IdP's clock may be from ours when the ID token's times are checked (OIDC_CLOCK_TOLERANCE_SECONDS). */
  clockToleranceSeconds: number;
}

/** The client authentication methods of OpenID Connect Core 9 the app speaks. */
export const CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt"] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

/**
 * The algorithms a client assertion may be signed with, by key type (jose signs with these; an RSA-PSS-only key,
 * `openssl genpkey -algorithm RSA-PSS`, it cannot: a plain RSA key signs PS256 too).
 */
const ASSERTION_ALGORITHMS: Readonly<Record<string, readonly string[]>> = {
  rsa: ["RS256", "PS256"],
  ec: ["ES256", "ES384", "ES512"],
  ed25519: ["EdDSA"],
};
const RSA_MIN_BITS = 2048;
const EC_ALGORITHMS: Readonly<Record<string, string>> = {
  prime256v1: "ES256",
  secp384r1: "ES384",
  secp521r1: "ES512",
};

export type OidcClientAuth =
  | { method: "client_secret_basic" | "client_secret_post"; secret: string }
  | {
      /** RFC 7523: a JWT signed with the app's private key (the IdP holds the public key or its certificate). */
      method: "private_key_jwt";
      /** A KeyObject serializes to `{}`: it cannot leak through JSON. */
      key: KeyObject;
      algorithm: string;
      /** The key's id at the IdP (`kid`), when it names keys so (Okta, Keycloak with a JWKS). */
      keyId: string | undefined;
      /** The certificate's thumbprints (`x5t#S256`, `x5t`), by which Entra ID finds the key. */
      thumbprints: { sha256: string; sha1: string } | undefined;
    };

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
  "OIDC_CLIENT_AUTH_METHOD",
  "OIDC_CLIENT_PRIVATE_KEY_FILE",
  "OIDC_CLIENT_KEY_ID",
  "OIDC_CLIENT_KEY_ALG",
  "OIDC_CLIENT_CERTIFICATE_FILE",
  "OIDC_EMAIL_CLAIM",
  "OIDC_TRUST_UNVERIFIED_EMAILS",
  "OIDC_CLOCK_TOLERANCE_SECONDS",
] as const;

/** Default and ceiling of OIDC_CLOCK_TOLERANCE_SECONDS. */
export const CLOCK_TOLERANCE_DEFAULT_SECONDS = 60;
const CLOCK_TOLERANCE_MAX_SECONDS = 300;

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

function claimPath(env: RawEnv, name: string): ClaimPath | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  const parsed = parseClaimPath(value);
  if (!parsed.ok) {
    throw new OidcConfigError(
      name,
      `is a claim name or a path such as realm_access.roles or resource_access["vendas.callcenter"].roles: ${parsed.problem}`,
    );
  }
  return parsed.path;
}

function readFile(name: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new OidcConfigError(
      name,
      `cannot be read (${typeof code === "string" ? code : "unreadable"}): ${file}`,
    );
  }
}

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** The key, its algorithm, and the certificate's thumbprints when one is given (which must hold the key's pair). */
function privateKeyJwtFrom(env: RawEnv, cwd: string): Extract<OidcClientAuth, { method: "private_key_jwt" }> {
  const file = text(env, "OIDC_CLIENT_PRIVATE_KEY_FILE");
  if (!file) {
    throw new OidcConfigError(
      "OIDC_CLIENT_PRIVATE_KEY_FILE",
      "is required with OIDC_CLIENT_AUTH_METHOD=private_key_jwt (a PEM private key)",
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(readFile("OIDC_CLIENT_PRIVATE_KEY_FILE", resolve(cwd, file)));
  } catch (error) {
    if (error instanceof OidcConfigError) throw error;
    throw new OidcConfigError(
      "OIDC_CLIENT_PRIVATE_KEY_FILE",
      "is not an unencrypted PEM private key (PKCS#8, PKCS#1 or SEC1; protect it by its file's permissions)",
    );
  }
  const type = key.asymmetricKeyType ?? "";
  const allowed = ASSERTION_ALGORITHMS[type];
  if (!allowed) {
    throw new OidcConfigError("OIDC_CLIENT_PRIVATE_KEY_FILE", `holds a ${type} key: use RSA, EC or Ed25519`);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (type === "rsa" && bits < RSA_MIN_BITS) {
    throw new OidcConfigError(
      "OIDC_CLIENT_PRIVATE_KEY_FILE",
      `holds a ${bits}-bit RSA key: at least ${RSA_MIN_BITS} bits (RFC 7518 3.3)`,
    );
  }
  const implied = type === "ec" ? EC_ALGORITHMS[String(key.asymmetricKeyDetails?.namedCurve)] : allowed[0];
  if (!implied)
    throw new OidcConfigError("OIDC_CLIENT_PRIVATE_KEY_FILE", "holds an EC key on an unknown curve");
  const algorithm = text(env, "OIDC_CLIENT_KEY_ALG") ?? implied;
  if (!allowed.includes(algorithm) || (type === "ec" && algorithm !== implied)) {
    throw new OidcConfigError(
      "OIDC_CLIENT_KEY_ALG",
      `is ${type === "ec" ? implied : allowed.join(" or ")} for this key (got "${algorithm}")`,
    );
  }
  const certificateFile = text(env, "OIDC_CLIENT_CERTIFICATE_FILE");
  let thumbprints: { sha256: string; sha1: string } | undefined;
  if (certificateFile) {
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(
        readFile("OIDC_CLIENT_CERTIFICATE_FILE", resolve(cwd, certificateFile)),
      );
    } catch (error) {
      if (error instanceof OidcConfigError) throw error;
      throw new OidcConfigError("OIDC_CLIENT_CERTIFICATE_FILE", "is not a PEM X.509 certificate");
    }
    if (!certificate.checkPrivateKey(key)) {
      throw new OidcConfigError(
        "OIDC_CLIENT_CERTIFICATE_FILE",
        "is not the certificate of OIDC_CLIENT_PRIVATE_KEY_FILE's key",
      );
    }
    thumbprints = {
      sha256: base64url(createHash("sha256").update(certificate.raw).digest()),
      sha1: base64url(createHash("sha1").update(certificate.raw).digest()),
    };
  }
  return { method: "private_key_jwt", key, algorithm, keyId: text(env, "OIDC_CLIENT_KEY_ID"), thumbprints };
}

function clientAuthFrom(env: RawEnv, cwd: string): OidcClientAuth {
  const method = (text(env, "OIDC_CLIENT_AUTH_METHOD") ?? "client_secret_basic") as ClientAuthMethod;
  if (!CLIENT_AUTH_METHODS.includes(method)) {
    throw new OidcConfigError(
      "OIDC_CLIENT_AUTH_METHOD",
      `is one of ${CLIENT_AUTH_METHODS.join(", ")}, as registered at the IdP (got "${method}")`,
    );
  }
  const secret = text(env, "OIDC_CLIENT_SECRET");
  const keyVariables = [
    "OIDC_CLIENT_PRIVATE_KEY_FILE",
    "OIDC_CLIENT_KEY_ID",
    "OIDC_CLIENT_KEY_ALG",
    "OIDC_CLIENT_CERTIFICATE_FILE",
  ];
  if (method !== "private_key_jwt") {
    if (!secret) throw new OidcConfigError("OIDC_CLIENT_SECRET", `is required with ${method}`);
    const stray = keyVariables.find((name) => text(env, name) !== undefined);
    if (stray) throw new OidcConfigError(stray, "is only read with OIDC_CLIENT_AUTH_METHOD=private_key_jwt");
    return { method, secret };
  }
  // A secret kept beside a key would still be a credential to guard, for nothing.
  if (secret) {
    throw new OidcConfigError(
      "OIDC_CLIENT_SECRET",
      "is not used with private_key_jwt: remove it (and at the IdP)",
    );
  }
  return privateKeyJwtFrom(env, cwd);
}

function clockToleranceFrom(env: RawEnv): number {
  const value = text(env, "OIDC_CLOCK_TOLERANCE_SECONDS");
  if (value === undefined) return CLOCK_TOLERANCE_DEFAULT_SECONDS;
  const seconds = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds <= CLOCK_TOLERANCE_MAX_SECONDS)) {
    throw new OidcConfigError(
      "OIDC_CLOCK_TOLERANCE_SECONDS",
      `is whole seconds from 0 to ${CLOCK_TOLERANCE_MAX_SECONDS} (got "${value}")`,
    );
  }
  return seconds;
}

/** Null when OIDC_ISSUER is unset (no other OIDC_* may then be set: a half-done set-up is a mistake). */
export function parseOidc(env: RawEnv, cwd: string = process.cwd()): OidcConfig | null {
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
  const roleClaim = claimPath(env, "OIDC_ROLE_CLAIM");
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
  const trusted = text(env, "OIDC_TRUST_UNVERIFIED_EMAILS");
  // The issuer by name, not "on": the trust is in one IdP, and must not carry over when OIDC_ISSUER changes.
  if (trusted !== undefined && trusted !== issuer) {
    throw new OidcConfigError(
      "OIDC_TRUST_UNVERIFIED_EMAILS",
      `names the issuer whose e-mails are taken without email_verified, exactly as OIDC_ISSUER (got "${trusted}")`,
    );
  }
  return {
    issuer: issuerFrom(issuer),
    clientId: required("OIDC_CLIENT_ID"),
    clientAuth: clientAuthFrom(env, cwd),
    name,
    autoCreate: parseSwitch(env, "OIDC_AUTO_CREATE", true),
    allowedEmailDomains,
    adoptPasswordAccounts,
    roleClaim,
    supervisorValues,
    emailClaim: claimPath(env, "OIDC_EMAIL_CLAIM") ?? { text: "email", steps: ["email"] },
    trustUnverifiedEmails: trusted !== undefined,
    clockToleranceSeconds: clockToleranceFrom(env),
  };
}
