import "server-only";
import type { OidcConfig } from "@/lib/config/oidc";
import type { Database } from "@/lib/db/connection";
import { findAgentByEmail } from "@/lib/db/queries/agents";
import {
  createAgentWithOidcIdentity,
  findAgentByOidcIdentity,
  linkOidcIdentity,
  recordOidcSignIn,
} from "@/lib/db/queries/oidc-identities";
import type { Agent } from "@/lib/db/schema";
import type { OidcErrorCode } from "./oidc-errors";
import { emailDomainAllowed, personFromClaims, roleFromClaims } from "./oidc-claims";

/** Why a person the IdP vouched for is still not let in (each has its pt-BR message in ./oidc-errors.ts). */
export type OidcRefusal = Exclude<
  OidcErrorCode,
  "oidc_unreachable" | "oidc_cancelled" | "oidc_state_mismatch"
>;

export type OidcSignIn =
  { ok: true; agent: Agent; outcome: "known" | "linked" | "created" } | { ok: false; refusal: OidcRefusal };

const refuse = (refusal: OidcRefusal): OidcSignIn => ({ ok: false, refusal });

/**
 * The IdP says who someone is; this decides whether, and as whom, they enter. By (`iss`, `sub`) first; else an
 * agent with the same e-mail, linked only when the IdP says the e-mail is verified; else a new agent when
 * OIDC_AUTO_CREATE allows, again on a verified e-mail only. The allowed domains are checked at every sign-in, the role re-read from the claim, and a
 * disabled agent stays out whatever the IdP says.
 */
export async function signInWithOidc(
  db: Database,
  claims: Record<string, unknown>,
  config: OidcConfig,
): Promise<OidcSignIn> {
  const person = personFromClaims(claims);
  if (!person) return refuse("oidc_failed");
  const role = roleFromClaims(claims, config);
  const identity = { issuer: person.issuer, subject: person.subject };

  if (config.allowedEmailDomains.length > 0) {
    if (!person.email) return refuse("oidc_email_missing");
    // An address the IdP does not vouch for proves nothing about the domain.
    if (person.emailVerified !== true) return refuse("oidc_email_unverified");
    if (!emailDomainAllowed(person.email, config.allowedEmailDomains)) return refuse("oidc_domain_refused");
  }

  const admit = async (agent: Agent, outcome: "known" | "linked"): Promise<OidcSignIn> => {
    if (agent.disabledAt) return refuse("oidc_account_disabled");
    const updated = await recordOidcSignIn(db, { identity, agentId: agent.id, name: person.name, role });
    return { ok: true, agent: updated, outcome };
  };
  // Two first sign-ins of one person at once: the other one linked or created the agent.
  const afterRace = async (): Promise<OidcSignIn> => {
    const agent = await findAgentByOidcIdentity(db, identity);
    return agent ? admit(agent, "known") : refuse("oidc_account_conflict");
  };

  const known = await findAgentByOidcIdentity(db, identity);
  if (known) return admit(known, "known");
  if (!person.email) return refuse("oidc_email_missing");

  const existing = await findAgentByEmail(db, person.email);
  if (existing) {
    // Never by an unverified e-mail: whoever can put that address on an IdP account would take the agent over.
    if (person.emailVerified !== true) return refuse("oidc_email_unverified");
    if (existing.disabledAt) return refuse("oidc_account_disabled");
    if (!(await linkOidcIdentity(db, identity, existing.id))) return afterRace();
    return admit(existing, "linked");
  }

  if (!config.autoCreate) return refuse("oidc_not_registered");
  // A new agent keeps the e-mail for good (history, export, the operator's CLI): not one the IdP does not vouch for,
  // or an unverified colleague's address would be taken before its owner first signs in.
  if (person.emailVerified !== true) return refuse("oidc_email_unverified");
  const created = await createAgentWithOidcIdentity(db, {
    identity,
    email: person.email,
    name: person.name,
    role,
  });
  return created ? { ok: true, agent: created, outcome: "created" } : afterRace();
}
