import "server-only";
import { decodeJwt, errors, jwtVerify, type JWTPayload } from "jose";
import type { Portal, PortalAlgorithm } from "@/lib/config/portals";
import { emailDomainAllowed } from "@/lib/config/email-domains";
import type { Database } from "@/lib/db/connection";
import { findAgentByEmail, normalizeEmail } from "@/lib/db/queries/agents";
import { spendTokenId } from "@/lib/db/queries/embed-token-uses";
import {
  adoptLegacyPortalIdentity,
  createAgentWithIdentity,
  findIdentity,
  isIdentityOf,
  type LinkedAgent,
} from "@/lib/db/queries/identities";
import type { AgentRole } from "@/lib/db/schema";
import { admitIdentity, type Admission } from "./admission";
import { pickPrefillFields, type PrefillValues } from "@/lib/validation/prefill";
import { textProblem } from "@/lib/validation/text";

export const MAX_TOKEN_LIFETIME_SECONDS = 5 * 60;
const CLOCK_TOLERANCE_SECONDS = 60;
/** The `aud` a portal addresses its tokens to. */
export const EMBED_TOKEN_AUDIENCE = "partner-sales";
/** The JOSE `typ` header of an embed token, so no other JWT the portal signs (an ID token…) passes for one. */
export const EMBED_TOKEN_TYPE = "partner-sales-embed+jwt";

// Pinned by the portal's configuration. "Ed25519" is the fully-specified name (RFC 9864) of what "EdDSA" means
// with an Ed25519 key, which is the only kind an EdDSA portal may have.
const ALGORITHMS: Record<PortalAlgorithm, string[]> = {
  HS256: ["HS256"],
  ES256: ["ES256"],
  EdDSA: ["EdDSA", "Ed25519"],
};

/**
 * `malformed`: not a signed token at all (not three parts, not JSON, no usable header). `signature`: the signature
 * does not hold with the portal's key, or the token uses another algorithm than the portal's. `claims`: signed by
 * the portal, but a claim is missing or malformed (`sub`, `jti`, `email`, `name`, `role`, `iat`/`exp` and the
 * 5-minute lifetime). `misaddressed`: not meant for this app (audience, type) or from no portal it knows (issuer). `email_domain`: an
 * e-mail outside the portal's domains. `account_conflict`: an e-mail another account has (the portal never takes it
 * over). `not_linked`: someone the portal may not create, whom no operator has linked to it.
 */
export type PortalTokenProblem =
  | "malformed"
  | "signature"
  | "claims"
  | "misaddressed"
  | "expired"
  | "replayed"
  | "disabled"
  | "email_domain"
  | "account_conflict"
  | "not_linked";

/**
 * Signed in: the session's role is agent unless the portal may say supervisor and its token does; `created`: this
 * token made the account; `adopted`: it named the issuer of an identity linked before tokens named one.
 */
export type PortalSignIn =
  | ({ ok: true; prefill: PrefillValues } & Admission<"known" | "created" | "adopted">)
  | {
      ok: false;
      problem: PortalTokenProblem;
      /** For the log: which check refused it. */
      detail: string;
      /** The portal that signed it, once the signature is checked. */
      issuer?: string;
      /** The account concerned, when there is one (a disabled agent; the account whose e-mail was named). */
      agentId?: string;
    };

const refuse = (
  problem: PortalTokenProblem,
  detail: string,
  about: { issuer?: string; agentId?: string } = {},
): PortalSignIn => ({ ok: false, problem, detail, ...about });

/**
 * The signature and every claim, with the portal's key. `expiredToo`: the time checked is no later than the token's
 * `exp` (whose signature and claims are checked all the same).
 */
async function verify(
  token: string,
  portals: readonly Portal[],
  now: Date,
  { expiredToo = false } = {},
): Promise<{ portal: Portal; payload: JWTPayload } | PortalSignIn> {
  let claimedIssuer: unknown;
  let claimedExpiry: unknown;
  try {
    ({ iss: claimedIssuer, exp: claimedExpiry } = decodeJwt(token));
  } catch {
    return refuse("malformed", "malformed");
  }
  // The unverified `iss` only picks which key to try; the signature and every claim are checked with that key.
  const portal = portals.find((each) => each.issuer === claimedIssuer);
  if (!portal)
    return refuse("misaddressed", typeof claimedIssuer === "string" ? "issuer_unknown" : "issuer_missing");
  const signedBy = { issuer: portal.issuer };
  try {
    const { payload } = await jwtVerify(token, portal.key, {
      algorithms: ALGORITHMS[portal.algorithm],
      issuer: portal.issuer,
      audience: EMBED_TOKEN_AUDIENCE,
      typ: EMBED_TOKEN_TYPE,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate:
        expiredToo && typeof claimedExpiry === "number" && claimedExpiry * 1000 < now.getTime()
          ? new Date(claimedExpiry * 1000)
          : now,
      requiredClaims: ["sub", "iat", "exp", "jti"],
    });
    // One audience, ours: a token also addressed to another service could be spent there as well.
    const audience = Array.isArray(payload.aud) && payload.aud.length === 1 ? payload.aud[0] : payload.aud;
    if (audience !== EMBED_TOKEN_AUDIENCE) return refuse("misaddressed", "audience", signedBy);
    return { portal, payload };
  } catch (error) {
    // Expiry, audience and type are checked once the signature held: the portal did sign the token.
    if (error instanceof errors.JWTExpired) return refuse("expired", "expired", signedBy);
    if (error instanceof errors.JWTClaimValidationFailed && ["aud", "typ"].includes(error.claim)) {
      return refuse("misaddressed", error.claim === "aud" ? "audience" : "type", signedBy);
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) return refuse("signature", "signature");
    if (error instanceof errors.JOSEAlgNotAllowed) return refuse("signature", "algorithm");
    // Checked after the signature held: a claim jose reads itself (`iat`, `nbf`, a required one) or a claim set
    // that is no JSON object.
    if (error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTInvalid) {
      return refuse("claims", "claims", signedBy);
    }
    // A header or a part that does not decode: not a signed token at all.
    return refuse("malformed", error instanceof errors.JOSEError ? error.code : "unreadable");
  }
}

interface AgentClaims {
  sub: string;
  jti: string;
  email: string;
  name: string;
  exp: number;
  /** The role the token asks for; only a portal that allows supervisors is heard. */
  role: AgentRole;
}

/** The claims that name the agent, when each is present and well formed; undefined otherwise. */
function agentClaims(payload: JWTPayload, now: Date): AgentClaims | undefined {
  const { sub, iat, exp, jti, email, name, role = "agent" } = payload as Record<string, unknown>;
  if (
    (role !== "agent" && role !== "supervisor") ||
    typeof sub !== "string" ||
    typeof jti !== "string" ||
    typeof email !== "string" ||
    typeof name !== "string" ||
    typeof iat !== "number" ||
    typeof exp !== "number" ||
    exp - iat > MAX_TOKEN_LIFETIME_SECONDS ||
    // A token "issued" in the future would stretch the 5-minute rule as far as its clock is wrong.
    iat > Math.floor(now.getTime() / 1000) + CLOCK_TOLERANCE_SECONDS ||
    !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ||
    !sub.trim() ||
    !name.trim() ||
    // Claims become database values: a NUL or a megabyte in a signed token is still refused here.
    [sub, jti, email, name].some((claim) => textProblem(claim, { maxLength: 255 }) !== null)
  ) {
    return undefined;
  }
  return { sub, jti, email, name, exp, role };
}

/**
 * A partner portal's backend signs who the agent is with its own key; the token is good for one sign-in within
 * 5 minutes. The agent is the one the portal's identity (its issuer, the token's `sub`) is linked to; a portal that
 * may create agents creates one the first time, in its own domains, never taking over an account that has the
 * e-mail already. The session is an agent's unless the portal may say supervisor.
 */
export async function signInWithPortalToken(
  db: Database,
  token: string,
  portals: readonly Portal[],
  now: Date = new Date(),
): Promise<PortalSignIn> {
  const verified = await verify(token, portals, now);
  if ("ok" in verified) return verified;
  const { portal, payload } = verified;
  const about = { issuer: portal.issuer };
  const claims = agentClaims(payload, now);
  if (!claims) return refuse("claims", "claims", about);
  const { sub, jti, email, name, exp } = claims;
  // A portal that creates no agents may list no domains: any e-mail, then (the identity decides who it is).
  if (!emailDomainAllowed(normalizeEmail(email), portal.emailDomains)) {
    return refuse("email_domain", "email_domain", about);
  }

  // Each portal picks its own `jti`s: one portal's cannot use up another's.
  const spent = await spendTokenId(
    db,
    JSON.stringify([portal.issuer, jti]),
    new Date((exp + CLOCK_TOLERANCE_SECONDS) * 1000),
    now,
  );
  if (!spent) return refuse("replayed", "jti", about);

  const found = await findOrCreateAgent(db, portal, { sub, email: normalizeEmail(email), name: name.trim() });
  if ("problem" in found) return refuse(found.problem, found.problem, { ...about, agentId: found.agentId });
  const { linked, outcome } = found;
  if (linked.agent.disabledAt) return refuse("disabled", "disabled", { ...about, agentId: linked.agent.id });
  const role = portal.allowsSupervisors ? claims.role : "agent";
  const admission = await admitIdentity(db, linked, { role, outcome, now });
  if (!admission) return refuse("not_linked", "unlinked_meanwhile", about);
  return { ok: true, ...admission, prefill: pickPrefillFields(payload.prefill) };
}

/**
 * The reload rule. A token the sign-in refused as used already or expired is still the portal's signed word on who
 * is at this screen: when the request's live session is already that agent's (same portal, same partner id), the
 * frame goes on with that session, consuming and starting nothing. This grants nothing the session did not have
 * (the same frame without any token shows that agent's form), and a session of anyone else, or none, still gets
 * the refusal. The signature, issuer, audience, type and claims are checked as for a sign-in: a forged or
 * misaddressed token never passes. Null when it is not that agent's; else the token's prefill.
 */
export async function tokenNamesSessionAgent(
  db: Database,
  token: string,
  portals: readonly Portal[],
  sessionAgentId: string,
  now: Date = new Date(),
): Promise<{ prefill: PrefillValues } | null> {
  const verified = await verify(token, portals, now, { expiredToo: true });
  if ("ok" in verified) return null;
  const claims = agentClaims(verified.payload, now);
  if (!claims) return null;
  const named = await isIdentityOf(db, sessionAgentId, {
    kind: "portal",
    issuer: verified.portal.issuer,
    subject: claims.sub,
  });
  return named ? { prefill: pickPrefillFields(verified.payload.prefill) } : null;
}

/**
 * By the portal's identity first; then, for the one portal configured to adopt them, an identity recorded before
 * tokens named their issuer; then, when the portal may create agents, a new agent, unless the e-mail is another
 * account's: that account is never taken over (an operator links it: `npm run agents -- link`).
 */
async function findOrCreateAgent(
  db: Database,
  portal: Portal,
  who: { sub: string; email: string; name: string },
): Promise<
  | { linked: LinkedAgent; outcome: "known" | "created" | "adopted" }
  | { problem: "account_conflict" | "not_linked"; agentId?: string }
> {
  const key = { kind: "portal" as const, issuer: portal.issuer, subject: who.sub };
  const known = await findIdentity(db, key);
  if (known) return { linked: known, outcome: "known" };
  const adopted = portal.adoptsLegacyAgents
    ? await adoptLegacyPortalIdentity(db, { issuer: portal.issuer, subject: who.sub })
    : undefined;
  if (adopted) return { linked: adopted, outcome: "adopted" };
  if (!portal.createsAgents) {
    // The one portal that adopts legacy identities may have adopted this one in another request just now.
    const raced = await findIdentity(db, key);
    return raced ? { linked: raced, outcome: "known" } : { problem: "not_linked" };
  }
  const created = await createAgentWithIdentity(db, { key, email: who.email, name: who.name, role: "agent" });
  if (created) return { linked: created, outcome: "created" };
  // Two first sign-ins of the same agent at once: the other one created the row.
  const raced = await findIdentity(db, key);
  if (raced) return { linked: raced, outcome: "known" };
  return { problem: "account_conflict", agentId: (await findAgentByEmail(db, who.email))?.id };
}
