import type { OidcConfig } from "@/lib/config/oidc";
import type { AgentRole } from "@/lib/db/schema";
import { emailProblem } from "@/lib/validation/contact";
import { cleanText, textProblem } from "@/lib/validation/text";

/**
 * What the app takes from an ID token Auth.js has checked (`iss`, `aud`, `exp`, `nonce`; it came straight from the
 * IdP's token endpoint over TLS, which OpenID Connect Core 3.1.3.7 accepts in place of checking its signature).
 */
export interface OidcPerson {
  /** The identity: (`iss`, `sub`), as the IdP wrote them. */
  issuer: string;
  subject: string;
  /** Lower case; undefined when the IdP sent none, or nothing that is an e-mail. */
  email: string | undefined;
  /** `email_verified` as sent (Entra ID: `xms_edov`); undefined when the IdP does not say. */
  emailVerified: boolean | undefined;
  name: string;
}

const IDENTITY_MAX_LENGTH = 255;
const NAME_MAX_LENGTH = 120;

const stringClaim = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() ? value.trim() : undefined;

const ENTRA_ISSUER = /^https:\/\/login\.microsoftonline\.com\//;

/**
 * `email_verified` as the IdP says it. Entra ID sends none; its optional `xms_edov` claim (the e-mail's domain is
 * verified as the tenant's own) stands in for it there, and only there: another IdP's `xms_edov` means nothing.
 */
function emailVerifiedOf(claims: Record<string, unknown>, issuer: string): boolean | undefined {
  if (typeof claims.email_verified === "boolean") return claims.email_verified;
  if (!ENTRA_ISSUER.test(issuer)) return undefined;
  return typeof claims.xms_edov === "boolean" ? claims.xms_edov : undefined;
}

// Bidirectional overrides and zero-width characters (Unicode's format class) would disguise the name supervisors read.
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/** Null when the token names nobody this app can store (no `iss`/`sub`, or text no database row should hold). */
export function personFromClaims(claims: Record<string, unknown>): OidcPerson | null {
  const issuer = stringClaim(claims.iss);
  const subject = typeof claims.sub === "string" && claims.sub ? claims.sub : undefined;
  if (!issuer || !subject) return null;
  if ([issuer, subject].some((value) => textProblem(value, { maxLength: IDENTITY_MAX_LENGTH }) !== null)) {
    return null;
  }
  // Checked before lower-casing: "\u212A" (the Kelvin sign) lower-cases to an ASCII "k" and would pass as someone else.
  const rawEmail = stringClaim(claims.email);
  const email = rawEmail && emailProblem(rawEmail) === null ? rawEmail.toLowerCase() : undefined;
  const fullName = [stringClaim(claims.given_name), stringClaim(claims.family_name)]
    .filter(Boolean)
    .join(" ");
  const name =
    [stringClaim(claims.name), fullName, stringClaim(claims.preferred_username), email?.split("@")[0]]
      .map((candidate) =>
        candidate ? cleanText(candidate.replace(FORMAT_CHARACTERS, ""), NAME_MAX_LENGTH) : "",
      )
      .find(Boolean) ?? "Agente";
  return {
    issuer,
    subject,
    email,
    emailVerified: emailVerifiedOf(claims, issuer),
    name,
  };
}

/**
 * A claim by its name; failing that, a dotted path into nested objects (Keycloak's `realm_access.roles`). Own
 * properties only: `constructor` or `__proto__` name nothing in a token.
 */
function claimAt(claims: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const part of name.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    if (!Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Whether the token carries the claim at all (for the sign-in's log line: a missing claim means "agent"). */
export function hasClaim(claims: Record<string, unknown>, name: string): boolean {
  return claimAt(claims, name) !== undefined;
}

/** Read at every sign-in, so a change at the IdP counts from the next one. No claim configured: everyone is an agent. */
export function roleFromClaims(
  claims: Record<string, unknown>,
  config: Pick<OidcConfig, "roleClaim" | "supervisorValues">,
): AgentRole {
  if (!config.roleClaim) return "agent";
  const value = claimAt(claims, config.roleClaim);
  const values = Array.isArray(value) ? value : [value];
  return values.some((each) => typeof each === "string" && config.supervisorValues.includes(each))
    ? "supervisor"
    : "agent";
}
