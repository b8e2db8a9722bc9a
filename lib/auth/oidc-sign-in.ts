import "server-only";
import { emailDomainAllowed } from "@/lib/config/email-domains";
import type { OidcConfig } from "@/lib/config/oidc";
import type { Database } from "@/lib/db/connection";
import { findAgentByEmail } from "@/lib/db/queries/agents";
import {
  adoptPasswordAccount,
  createAgentWithIdentity,
  findIdentity,
  takeInvitation,
  type LinkedAgent,
} from "@/lib/db/queries/identities";
import { admitIdentity, type Admission } from "./admission";
import type { OidcErrorCode } from "@/lib/errors/oidc";
import { personFromClaims, roleFromClaims } from "./oidc-claims";

/** Why a person the IdP vouched for is still not let in (each has its pt-BR message in lib/errors/oidc.ts). */
export type OidcRefusal = Exclude<
  OidcErrorCode,
  "oidc_unreachable" | "oidc_cancelled" | "oidc_state_mismatch"
>;

/**
 * `known`: the identity was linked already. `invited`: it took the operator's invitation. `adopted`: it took a
 * password account (OIDC_ADOPT_PASSWORD_ACCOUNTS). `created`: its first sign-in created the agent.
 */
export type OidcOutcome = "known" | "invited" | "adopted" | "created";

/** Signed in: the session's role is the IdP's claim now. */
export type OidcSignIn =
  | ({ ok: true } & Admission<OidcOutcome>)
  | { ok: false; refusal: OidcRefusal; /** The account concerned, when there is one. */ agentId?: string };

const refuse = (refusal: OidcRefusal, agentId?: string): OidcSignIn => ({ ok: false, refusal, agentId });

/**
 * The IdP says who someone is; this decides whether, and as whom, they enter. The identity (`iss`, `sub`) reaches the
 * one agent it is linked to. Someone not yet linked takes an operator's invitation to their account, or (opted in)
 * adopts their password account, or gets a new agent when OIDC_AUTO_CREATE allows: always on a verified e-mail, and
 * never an account that has the e-mail through another door. The allowed domains are checked at every sign-in, the
 * role is the claim's at every sign-in, and a disabled agent stays out whatever the IdP says.
 */
export async function signInWithOidc(
  db: Database,
  claims: Record<string, unknown>,
  config: OidcConfig,
  now: Date = new Date(),
): Promise<OidcSignIn> {
  const person = personFromClaims(claims, config);
  if (!person) return refuse("oidc_failed");
  const role = roleFromClaims(claims, config);
  const key = { kind: "oidc" as const, issuer: person.issuer, subject: person.subject };

  if (config.allowedEmailDomains.length > 0) {
    if (!person.email) return refuse("oidc_email_missing");
    // An address the IdP does not vouch for proves nothing about the domain.
    if (person.emailVerified !== true) return refuse("oidc_email_unverified");
    if (!emailDomainAllowed(person.email, config.allowedEmailDomains)) return refuse("oidc_domain_refused");
  }

  const admit = async (linked: LinkedAgent, outcome: OidcOutcome): Promise<OidcSignIn> => {
    if (linked.agent.disabledAt) return refuse("oidc_account_disabled", linked.agent.id);
    const admission = await admitIdentity(db, linked, { role, outcome, name: person.name, now });
    return admission ? { ok: true, ...admission } : refuse("oidc_failed", linked.agent.id);
  };

  const known = await findIdentity(db, key);
  if (known) return admit(known, "known");
  if (!person.email) return refuse("oidc_email_missing");
  // Whatever follows keeps or finds an account by this e-mail: never on the IdP's unverified word, or whoever can
  // put an address on an IdP account would take its owner's place.
  if (person.emailVerified !== true) return refuse("oidc_email_unverified");
  const { email } = person;

  const invited = await takeInvitation(db, {
    issuer: person.issuer,
    subject: person.subject,
    email,
    role,
    now,
  });
  if (invited) return admit(invited, "invited");
  const existing = await findAgentByEmail(db, email);
  if (existing) {
    const adopted = config.adoptPasswordAccounts
      ? await adoptPasswordAccount(db, { key, email, role })
      : undefined;
    if (adopted) return admit(adopted, "adopted");
    // Two first sign-ins of one person at once: the other one linked it.
    const raced = await findIdentity(db, key);
    if (raced) return admit(raced, "known");
    if (existing.disabledAt) return refuse("oidc_account_disabled", existing.id);
    return refuse("oidc_account_conflict", existing.id);
  }

  if (!config.autoCreate) return refuse("oidc_not_registered");
  const created = await createAgentWithIdentity(db, { key, email, name: person.name, role });
  if (created) return admit(created, "created");
  const raced = await findIdentity(db, key);
  return raced
    ? admit(raced, "known")
    : refuse("oidc_account_conflict", (await findAgentByEmail(db, email))?.id);
}
