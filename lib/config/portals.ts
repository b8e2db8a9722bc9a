import { createPublicKey, createSecretKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { emailDomainFrom, emailDomainsIn } from "./email-domains";

/** The algorithms a portal may sign with. Each key is pinned to one; a token's header never chooses. */
export const PORTAL_ALGORITHMS = ["HS256", "ES256", "EdDSA"] as const;
export type PortalAlgorithm = (typeof PORTAL_ALGORITHMS)[number];

/** A partner portal whose backend may vouch for an agent with a signed embed token. */
export interface Portal {
  /** The `iss` of its tokens, and half of its agents' identity (with `sub`). */
  issuer: string;
  algorithm: PortalAlgorithm;
  /** Its HS256 secret or its public key. A KeyObject serializes to `{}`, so it cannot leak through JSON. */
  key: KeyObject;
  /** Takes over agents linked before tokens named their issuer (recorded with issuer ''): see docs/embedding.md. */
  adoptsLegacyAgents: boolean;
  /** The domains of the e-mails its tokens may name (lower case); empty only for a portal that creates no agents. */
  emailDomains: string[];
  /** Whether the first token of someone unknown creates their agent; false: an operator links each one. */
  createsAgents: boolean;
  /** Whether a token saying `"role": "supervisor"` opens a supervisor session; false: its sessions are agents'. */
  allowsSupervisors: boolean;
}

const SECRET_MIN_LENGTH = 32;
const ISSUER_MAX_LENGTH = 255;
const FIELDS = new Set([
  "issuer",
  "alg",
  "secret",
  "publicKey",
  "adoptLegacyAgents",
  "emailDomains",
  "createAgents",
  "allowSupervisors",
]);
const CURVES: Record<Exclude<PortalAlgorithm, "HS256">, { type: string; curve?: string; name: string }> = {
  ES256: { type: "ec", curve: "prime256v1", name: "a P-256 (ES256)" },
  EdDSA: { type: "ed25519", name: "an Ed25519 (EdDSA)" },
};

/** Names the variable, like ConfigError; its message never holds a secret. */
export class PortalConfigError extends Error {
  override readonly name = "PortalConfigError";
  constructor(
    readonly variable: "EMBED_PORTALS_FILE" | "EMBED_SSO_SECRET" | "EMBED_SSO_EMAIL_DOMAINS",
    message: string,
  ) {
    super(message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The portals allowed to sign agents in: from EMBED_PORTALS_FILE, or EMBED_SSO_SECRET as a shorthand for the one
 * portal of EMBED_ALLOWED_ORIGINS with an HS256 secret (its tokens' `iss` is that origin).
 * Tokens are only taken inside an allowed portal's frame, so either needs EMBED_ALLOWED_ORIGINS.
 */
export function parseEmbedPortals(input: {
  portalsFile: string | undefined;
  ssoSecret: string | undefined;
  /** EMBED_SSO_EMAIL_DOMAINS, the shorthand portal's `emailDomains`, comma-separated. */
  ssoEmailDomains?: string | undefined;
  allowedOrigins: readonly string[];
}): Portal[] {
  const { portalsFile, ssoSecret, ssoEmailDomains, allowedOrigins } = input;
  if (ssoEmailDomains && !ssoSecret) {
    throw new PortalConfigError(
      "EMBED_SSO_EMAIL_DOMAINS",
      portalsFile
        ? "is EMBED_SSO_SECRET's: give each portal its emailDomains in EMBED_PORTALS_FILE"
        : "is set but EMBED_SSO_SECRET is not (set both, or neither)",
    );
  }
  if (portalsFile && ssoSecret) {
    throw new PortalConfigError(
      "EMBED_SSO_SECRET",
      "set EMBED_PORTALS_FILE or EMBED_SSO_SECRET, not both (move the secret into the portals file)",
    );
  }
  const variable = portalsFile ? "EMBED_PORTALS_FILE" : "EMBED_SSO_SECRET";
  if ((portalsFile || ssoSecret) && allowedOrigins.length === 0) {
    throw new PortalConfigError(
      variable,
      "needs EMBED_ALLOWED_ORIGINS: portal tokens are only accepted inside an allowed portal's frame",
    );
  }
  if (ssoSecret) {
    if (ssoSecret.length < SECRET_MIN_LENGTH) {
      throw new PortalConfigError(variable, `must be at least ${SECRET_MIN_LENGTH} characters long`);
    }
    // One shared secret is one portal: with two, either could mint tokens in the other's name.
    if (allowedOrigins.length > 1) {
      throw new PortalConfigError(
        variable,
        `is one portal's secret, but EMBED_ALLOWED_ORIGINS names ${allowedOrigins.length}: give each portal its key in EMBED_PORTALS_FILE`,
      );
    }
    const key = createSecretKey(Buffer.from(ssoSecret, "utf8"));
    const emailDomains = emailDomainsIn(ssoEmailDomains, (entry) => {
      throw new PortalConfigError(
        "EMBED_SSO_EMAIL_DOMAINS",
        `"${entry.slice(0, 80)}" is not a domain (list them exactly, comma-separated)`,
      );
    });
    return [
      {
        issuer: allowedOrigins[0]!,
        algorithm: "HS256",
        key,
        adoptsLegacyAgents: true,
        emailDomains,
        // Without its domains the portal signs in only the agents an operator linked to it.
        createsAgents: emailDomains.length > 0,
        allowsSupervisors: false,
      },
    ];
  }
  return portalsFile ? readPortalsFile(portalsFile) : [];
}

function readPortalsFile(path: string): Portal[] {
  const fail = (problem: string): never => {
    throw new PortalConfigError("EMBED_PORTALS_FILE", `${path}${problem}`);
  };
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    fail(` cannot be read (${(error as NodeJS.ErrnoException).code ?? "unreadable"})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail(" is not valid JSON");
  }
  if (!Array.isArray(json) || json.length === 0) fail(" must be a non-empty JSON array of portals");
  const portals = (json as unknown[]).map((entry, index) =>
    portalFrom(entry, (problem) => fail(` [${index}]${problem}`)),
  );

  portals.forEach((portal, index) => {
    const earlier = portals.findIndex((other) => other.issuer === portal.issuer);
    if (earlier < index) fail(` [${index}].issuer repeats [${earlier}]'s: each portal has its own issuer`);
    const sharing = portals.findIndex((other) => other.key.equals(portal.key));
    if (sharing < index) fail(` [${index}] has the same key as [${sharing}]: each portal needs its own key`);
  });
  if (portals.filter((portal) => portal.adoptsLegacyAgents).length > 1) {
    fail(": adoptLegacyAgents may be true for one portal only");
  }
  return portals;
}

function portalFrom(entry: unknown, fail: (problem: string) => never): Portal {
  if (!isObject(entry)) return fail(" must be an object");
  const unknownField = Object.keys(entry).find((field) => !FIELDS.has(field));
  if (unknownField !== undefined) fail(` has an unknown field "${unknownField.slice(0, 40)}"`);

  const { issuer, alg, secret, publicKey, adoptLegacyAgents, emailDomains, createAgents, allowSupervisors } =
    entry;
  if (
    typeof issuer !== "string" ||
    issuer !== issuer.trim() ||
    !issuer ||
    issuer.length > ISSUER_MAX_LENGTH ||
    /[\u0000-\u001f\u007f-\u009f]/.test(issuer)
  ) {
    fail(
      `.issuer must be the portal's "iss": text of 1 to ${ISSUER_MAX_LENGTH} characters, no spaces around`,
    );
  }
  if (!PORTAL_ALGORITHMS.includes(alg as PortalAlgorithm))
    fail(`.alg must be one of ${PORTAL_ALGORITHMS.join(", ")}`);
  if (adoptLegacyAgents !== undefined && typeof adoptLegacyAgents !== "boolean") {
    fail(".adoptLegacyAgents must be true or false");
  }
  const algorithm = alg as PortalAlgorithm;
  let key: KeyObject;
  if (algorithm === "HS256") {
    if (publicKey !== undefined) fail(': HS256 takes a "secret", not a "publicKey"');
    if (typeof secret !== "string" || secret.length < SECRET_MIN_LENGTH) {
      fail(`.secret must be text of at least ${SECRET_MIN_LENGTH} characters`);
    }
    key = createSecretKey(Buffer.from(secret as string, "utf8"));
  } else {
    if (secret !== undefined) fail(`: ${algorithm} takes the portal's "publicKey", not a "secret"`);
    key = publicKeyFrom(publicKey, algorithm, fail);
  }
  for (const [field, value] of Object.entries({ createAgents, allowSupervisors })) {
    if (value !== undefined && typeof value !== "boolean") fail(`.${field} must be true or false`);
  }
  const domains = emailDomainsFrom(emailDomains, fail);
  const createsAgents = createAgents !== false;
  // A portal that creates agents could otherwise create one for any e-mail: a colleague's, or the partner's IdP's.
  if (createsAgents && domains.length === 0) {
    fail(
      ': a portal that creates agents needs "emailDomains" (the domains its agents\' e-mails are in), or "createAgents": false',
    );
  }
  return {
    issuer: issuer as string,
    algorithm,
    key,
    adoptsLegacyAgents: adoptLegacyAgents === true,
    emailDomains: domains,
    createsAgents,
    allowsSupervisors: allowSupervisors === true,
  };
}

function emailDomainsFrom(value: unknown, fail: (problem: string) => never): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length === 0) fail(".emailDomains must be a non-empty list of domains");
  return (value as unknown[]).map((entry, index) => {
    const domain = typeof entry === "string" ? emailDomainFrom(entry) : null;
    return domain ?? fail(`.emailDomains[${index}] is not a domain (exactly, like "parceira.com.br")`);
  });
}

function publicKeyFrom(
  value: unknown,
  algorithm: Exclude<PortalAlgorithm, "HS256">,
  fail: (problem: string) => never,
): KeyObject {
  // createPublicKey would quietly derive a public key from a private one: Partner Sales holds no signing key.
  const privateKey = fail.bind(null, ".publicKey is a private key: give Partner Sales the public key only");
  let key: KeyObject | undefined;
  if (typeof value === "string") {
    if (value.includes("PRIVATE KEY")) privateKey();
    try {
      key = createPublicKey({ key: value, format: "pem" });
    } catch {
      fail(".publicKey is not a PEM public key");
    }
  } else if (isObject(value)) {
    if ("d" in value) privateKey();
    try {
      key = createPublicKey({ key: value as JsonWebKey, format: "jwk" });
    } catch {
      fail(".publicKey is not a public JWK");
    }
  } else {
    fail(".publicKey must be a PEM string or a JWK object");
  }
  const expected = CURVES[algorithm];
  if (
    key?.asymmetricKeyType !== expected.type ||
    (expected.curve && key.asymmetricKeyDetails?.namedCurve !== expected.curve)
  ) {
    fail(`.publicKey is not ${expected.name} public key`);
  }
  return key!;
}
