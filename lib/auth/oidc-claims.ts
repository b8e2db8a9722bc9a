import { claimAt, type ClaimPath } from "@/lib/config/claim-path";
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
  /**
   * `email_verified` as sent (Entra ID: `xms_edov`), or true where the operator trusts this IdP's e-mails
   * (OIDC_TRUST_UNVERIFIED_EMAILS); undefined when nobody says.
   */
  emailVerified: boolean | undefined;
  name: string;
}

const IDENTITY_MAX_LENGTH = 255;
const NAME_MAX_LENGTH = 120;

const stringClaim = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() ? value.trim() : undefined;

const ENTRA_ISSUER = /^https:\/\/login\.microsoftonline\.com\//;

/** A boolean claim as IdPs send it: `true`, or the string `"true"` (some send every claim as a string). */
function flag(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value !== "string") return undefined;
  const lower = value.trim().toLowerCase();
  return lower === "true" ? true : lower === "false" ? false : undefined;
}

/**
 * Whether the e-mail is verified, as the IdP says it. `email_verified` speaks of the `email` claim only: an address
 * taken from another one (`preferred_username`, `upn`) has no such word. Entra ID sends none; its optional `xms_edov`
 * claim (the e-mail's domain is verified as the tenant's own) stands in for it there, and only there: another
 * IdP's `xms_edov` means nothing. Where nobody says, the operator may vouch for the IdP (an explicit `false` stays).
 */
function emailVerifiedOf(
  claims: Record<string, unknown>,
  issuer: string,
  config: Pick<OidcConfig, "emailClaim" | "trustUnverifiedEmails">,
): boolean | undefined {
  const { steps } = config.emailClaim;
  const fromEmail = steps.length === 1 && steps[0] === "email";
  const said = !fromEmail
    ? undefined
    : (flag(claims.email_verified) ?? (ENTRA_ISSUER.test(issuer) ? flag(claims.xms_edov) : undefined));
  return said ?? (config.trustUnverifiedEmails ? true : undefined);
}

// Bidirectional overrides and zero-width characters (Unicode's format class) would disguise the name supervisors read.
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/** Null when the token names nobody this app can store (no `iss`/`sub`, or text no database row should hold). */
export function personFromClaims(
  claims: Record<string, unknown>,
  config: Pick<OidcConfig, "emailClaim" | "trustUnverifiedEmails">,
): OidcPerson | null {
  const issuer = stringClaim(claims.iss);
  const subject = typeof claims.sub === "string" && claims.sub ? claims.sub : undefined;
  if (!issuer || !subject) return null;
  if ([issuer, subject].some((value) => textProblem(value, { maxLength: IDENTITY_MAX_LENGTH }) !== null)) {
    return null;
  }
  // Checked before lower-casing: "\u212A" (the Kelvin sign) lower-cases to an ASCII "k" and would pass as someone else.
  const rawEmail = stringClaim(claimAt(claims, config.emailClaim));
  const email = rawEmail && emailProblem(rawEmail) === null ? rawEmail.toLowerCase() : undefined;
  const fullName = [stringClaim(claims.given_name), stringClaim(claims.family_name)]
    .filter(Boolean)
    .join(" ");
  const name =
    // A user name that is the e-mail itself (OIDC_EMAIL_CLAIM=preferred_username) is no name: its local part is.
    [
      stringClaim(claims.name),
      fullName,
      stringClaim(claims.preferred_username) === rawEmail
        ? undefined
        : stringClaim(claims.preferred_username),
      email?.split("@")[0],
    ]
      .map((candidate) =>
        candidate ? cleanText(candidate.replace(FORMAT_CHARACTERS, ""), NAME_MAX_LENGTH) : "",
      )
      .find(Boolean) ?? "Agente";
  return {
    issuer,
    subject,
    email,
    emailVerified: emailVerifiedOf(claims, issuer, config),
    name,
  };
}

/** Whether the token carries the claim at all (for the sign-in's log line: a missing claim means "agent"). */
export function hasClaim(claims: Record<string, unknown>, path: ClaimPath): boolean {
  return claimAt(claims, path) !== undefined;
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
