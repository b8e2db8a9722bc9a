import "server-only";
import type { Database } from "@/lib/db/connection";
import { recordIdentitySignIn, type LinkedAgent } from "@/lib/db/queries/identities";
import type { Agent, AgentIdentity, AgentRole } from "@/lib/db/schema";

/** Someone let in through an identity: their account, the identity, the role of the session, what the sign-in did. */
export interface Admission<Outcome extends string = string> {
  agent: Agent;
  identity: AgentIdentity;
  /** The session's role: what this door gives now. */
  role: AgentRole;
  outcome: Outcome;
  /** The role this door gave at its previous sign-in, when it changed (null otherwise). */
  previousRole: AgentRole | null;
}

/**
 * Records a sign-in through `linked` (when, the door's role now, the IdP's name) and says who was let in, as what;
 * undefined when an operator unlinked the identity meanwhile.
 */
export async function admitIdentity<Outcome extends string>(
  db: Database,
  linked: LinkedAgent,
  input: { role: AgentRole; outcome: Outcome; name?: string; now: Date },
): Promise<Admission<Outcome> | undefined> {
  const recorded = await recordIdentitySignIn(db, {
    identityId: linked.identity.id,
    role: input.role,
    name: input.name,
    now: input.now,
  });
  if (!recorded) return undefined;
  return {
    agent: recorded.renamed ?? linked.agent,
    identity: linked.identity,
    role: input.role,
    outcome: input.outcome,
    previousRole: recorded.roleChangedFrom,
  };
}

/** What Auth.js carries from a sign-in to the session it starts (auth.ts's `User`). */
export function admittedUser(admission: Admission) {
  const { agent, identity } = admission;
  return {
    id: agent.id,
    name: agent.name,
    email: agent.email,
    role: admission.role,
    door: { kind: identity.kind, issuer: identity.issuer },
    identityId: identity.id,
    accountChange: { outcome: admission.outcome, previousRole: admission.previousRole },
  };
}
