import "server-only";
import { and, eq, sql } from "drizzle-orm";
import { getTableColumns } from "drizzle-orm";
import type { Database } from "../connection";
import { agents, oidcIdentities, type Agent, type AgentRole } from "../schema";

export interface OidcIdentity {
  issuer: string;
  subject: string;
}

const byIdentity = (identity: OidcIdentity) =>
  and(eq(oidcIdentities.issuer, identity.issuer), eq(oidcIdentities.subject, identity.subject));

export async function findAgentByOidcIdentity(
  db: Database,
  identity: OidcIdentity,
): Promise<Agent | undefined> {
  const [agent] = await db
    .select(getTableColumns(agents))
    .from(oidcIdentities)
    .innerJoin(agents, eq(agents.id, oidcIdentities.agentId))
    .where(byIdentity(identity))
    .limit(1);
  return agent;
}

/**
 * False when the identity is already someone's, or the agent already has another identity at this issuer: the
 * caller decides, nothing is overwritten.
 */
export async function linkOidcIdentity(
  db: Database,
  identity: OidcIdentity,
  agentId: string,
): Promise<boolean> {
  const linked = await db
    .insert(oidcIdentities)
    .values({ ...identity, agentId })
    .onConflictDoNothing()
    .returning({ agentId: oidcIdentities.agentId });
  return linked.length > 0;
}

/** A new agent (no password: it signs in through the IdP) with its identity; undefined when the e-mail is taken. */
export async function createAgentWithOidcIdentity(
  db: Database,
  input: { identity: OidcIdentity; email: string; name: string; role: AgentRole },
): Promise<Agent | undefined> {
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .insert(agents)
      .values({ email: input.email, name: input.name, role: input.role, passwordHash: null })
      .onConflictDoNothing({ target: agents.email })
      .returning();
    if (!agent) return undefined;
    await tx.insert(oidcIdentities).values({ ...input.identity, agentId: agent.id });
    return agent;
  });
}

/** Every sign-in: the role and name the IdP gives now, and when the identity was last used. */
export async function recordOidcSignIn(
  db: Database,
  input: { identity: OidcIdentity; agentId: string; name: string; role: AgentRole },
): Promise<Agent> {
  return db.transaction(async (tx) => {
    await tx
      .update(oidcIdentities)
      .set({ lastSignInAt: sql`now()` })
      .where(byIdentity(input.identity));
    const [agent] = await tx
      .update(agents)
      .set({ name: input.name, role: input.role, updatedAt: sql`now()` })
      .where(eq(agents.id, input.agentId))
      .returning();
    return agent!;
  });
}

/** The CLI's unlink-idp: the agent's IdP identities go (an IdP account re-created with a new `sub`, say). */
export async function unlinkOidcIdentities(db: Database, agentId: string): Promise<number> {
  const unlinked = await db
    .delete(oidcIdentities)
    .where(eq(oidcIdentities.agentId, agentId))
    .returning({ subject: oidcIdentities.subject });
  return unlinked.length;
}
