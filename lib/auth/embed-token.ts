import "server-only";
import { decodeJwt, errors, jwtVerify, type JWTPayload } from "jose";
import type { EmbedPortal, PortalAlgorithm } from "@/lib/config/portals";
import type { Database } from "@/lib/db/connection";
import { normalizeEmail } from "@/lib/db/queries/agents";
import {
  adoptLegacyPortalAgent,
  createPortalAgent,
  findPortalAgent,
  isPortalAgent,
  linkPortalAgentByEmail,
  spendTokenId,
} from "@/lib/db/queries/portal-agents";
import type { Agent } from "@/lib/db/schema";
import { pickSaleFields, type SaleFormValues } from "@/lib/validation/sale";
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

/** `misaddressed`: not meant for this app (audience, type) or from no portal it knows (issuer). */
export type EmbedTokenProblem = "invalid" | "misaddressed" | "expired" | "replayed" | "disabled";

export type EmbedSignIn =
  | { ok: true; agent: Agent; prefill: Partial<SaleFormValues> }
  | { ok: false; problem: EmbedTokenProblem; /** For the log: which check refused it. */ detail: string };

const refuse = (problem: EmbedTokenProblem, detail: string): EmbedSignIn => ({ ok: false, problem, detail });

/**
 * The signature and every claim, with the portal's key. `expiredToo`: the time checked is no later than the token's
 * `exp` (whose signature and claims are checked all the same).
 */
async function verify(
  token: string,
  portals: readonly EmbedPortal[],
  now: Date,
  { expiredToo = false } = {},
): Promise<{ portal: EmbedPortal; payload: JWTPayload } | EmbedSignIn> {
  let claimedIssuer: unknown;
  let claimedExpiry: unknown;
  try {
    ({ iss: claimedIssuer, exp: claimedExpiry } = decodeJwt(token));
  } catch {
    return refuse("invalid", "malformed");
  }
  // The unverified `iss` only picks which key to try; the signature and every claim are checked with that key.
  const portal = portals.find((each) => each.issuer === claimedIssuer);
  if (!portal)
    return refuse("misaddressed", typeof claimedIssuer === "string" ? "issuer_unknown" : "issuer_missing");
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
    if (audience !== EMBED_TOKEN_AUDIENCE) return refuse("misaddressed", "audience");
    return { portal, payload };
  } catch (error) {
    if (error instanceof errors.JWTExpired) return refuse("expired", "expired");
    if (error instanceof errors.JWTClaimValidationFailed && ["aud", "typ"].includes(error.claim)) {
      return refuse("misaddressed", error.claim === "aud" ? "audience" : "type");
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) return refuse("invalid", "signature");
    if (error instanceof errors.JOSEAlgNotAllowed) return refuse("invalid", "algorithm");
    return refuse("invalid", "claims");
  }
}

interface AgentClaims {
  sub: string;
  jti: string;
  email: string;
  name: string;
  exp: number;
}

/** The claims that name the agent, when each is present and well formed; undefined otherwise. */
function agentClaims(payload: JWTPayload, now: Date): AgentClaims | undefined {
  const { sub, iat, exp, jti, email, name } = payload as Record<string, unknown>;
  if (
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
  return { sub, jti, email, name, exp };
}

/**
 * A partner portal's backend signs who the agent is with its own key; the token is good for one sign-in within
 * 5 minutes. The agent is found by (portal, partner id), linked by e-mail the first time, or created.
 */
export async function signInWithEmbedToken(
  db: Database,
  token: string,
  portals: readonly EmbedPortal[],
  now: Date = new Date(),
): Promise<EmbedSignIn> {
  const verified = await verify(token, portals, now);
  if ("ok" in verified) return verified;
  const { portal, payload } = verified;
  const claims = agentClaims(payload, now);
  if (!claims) return refuse("invalid", "claims");
  const { sub, jti, email, name, exp } = claims;

  // Each portal picks its own `jti`s: one portal's cannot use up another's.
  const spent = await spendTokenId(
    db,
    JSON.stringify([portal.issuer, jti]),
    new Date((exp + CLOCK_TOLERANCE_SECONDS) * 1000),
    now,
  );
  if (!spent) return refuse("replayed", "jti");

  const agent = await findOrLinkAgent(db, portal, { sub, email: normalizeEmail(email), name: name.trim() });
  if (!agent) return refuse("invalid", "email_taken");
  if (agent.disabledAt) return refuse("disabled", "disabled");
  return { ok: true, agent, prefill: pickSaleFields(payload.prefill) };
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
  portals: readonly EmbedPortal[],
  sessionAgentId: string,
  now: Date = new Date(),
): Promise<{ prefill: Partial<SaleFormValues> } | null> {
  const verified = await verify(token, portals, now, { expiredToo: true });
  if ("ok" in verified) return null;
  const claims = agentClaims(verified.payload, now);
  if (!claims) return null;
  const named = await isPortalAgent(db, sessionAgentId, { issuer: verified.portal.issuer, sub: claims.sub });
  return named ? { prefill: pickSaleFields(verified.payload.prefill) } : null;
}

/**
 * By (portal, partner id) first; then, for the one portal configured to adopt them, an agent linked before
 * tokens named their issuer; else an unlinked agent-role account without a password, with the same e-mail
 * (a supervisor's or a password account is never taken over); else a new agent. Undefined when the e-mail
 * belongs to an account that may not be linked.
 */
async function findOrLinkAgent(
  db: Database,
  portal: EmbedPortal,
  who: { sub: string; email: string; name: string },
): Promise<Agent | undefined> {
  const identity = { issuer: portal.issuer, sub: who.sub };
  return (
    (await findPortalAgent(db, identity)) ??
    (portal.adoptsLegacyAgents ? await adoptLegacyPortalAgent(db, identity) : undefined) ??
    (await linkPortalAgentByEmail(db, identity, who.email)) ??
    (await createPortalAgent(db, identity, who)) ??
    // Two first sign-ins of the same agent at once: the other one created the row.
    (await findPortalAgent(db, identity))
  );
}
