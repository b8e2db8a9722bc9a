import "server-only";
import { and, eq, isNull, lt, notExists, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database } from "../connection";
import { agents, embedTokenUses, type Agent } from "../schema";

/** A portal's agent: the partner's id for them (`sub`) at that portal (`issuer`). */
export interface PortalIdentity {
  issuer: string;
  sub: string;
}

/**
 * Spends a portal token's `jti` once: false when it was spent already. Spent ids are kept until the token
 * would have expired anyway (`expiresAt`), and forgotten after that.
 */
export async function spendTokenId(db: Database, key: string, expiresAt: Date, now: Date): Promise<boolean> {
  await db.delete(embedTokenUses).where(lt(embedTokenUses.expiresAt, now));
  const [fresh] = await db
    .insert(embedTokenUses)
    .values({ jti: key, expiresAt })
    .onConflictDoNothing()
    .returning();
  return Boolean(fresh);
}

const isIdentity = ({ issuer, sub }: PortalIdentity) =>
  and(eq(agents.externalIssuer, issuer), eq(agents.externalSubject, sub));

export async function findPortalAgent(db: Database, identity: PortalIdentity): Promise<Agent | undefined> {
  const [agent] = await db.select().from(agents).where(isIdentity(identity)).limit(1);
  return agent;
}

/** Whether the enabled agent `agentId` is the one `identity` names. */
export async function isPortalAgent(
  db: Database,
  agentId: string,
  identity: PortalIdentity,
): Promise<boolean> {
  const [agent] = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.id, agentId), isIdentity(identity), isNull(agents.disabledAt)))
    .limit(1);
  return Boolean(agent);
}

/**
 * An agent linked before tokens named their issuer (only the partner id was kept) takes the portal's issuer,
 * unless another agent already has this identity.
 */
export async function adoptLegacyPortalAgent(
  db: Database,
  identity: PortalIdentity,
): Promise<Agent | undefined> {
  const taken = alias(agents, "taken");
  const [adopted] = await db
    .update(agents)
    .set({ externalIssuer: identity.issuer, updatedAt: sql`now()` })
    .where(
      and(
        isNull(agents.externalIssuer),
        eq(agents.externalSubject, identity.sub),
        notExists(
          db
            .select({ id: taken.id })
            .from(taken)
            .where(and(eq(taken.externalIssuer, identity.issuer), eq(taken.externalSubject, identity.sub))),
        ),
      ),
    )
    .returning();
  return adopted;
}

/**
 * The unlinked agent-role account without a password that has this e-mail takes the identity (a supervisor's or
 * a password account is never taken over).
 */
export async function linkPortalAgentByEmail(
  db: Database,
  identity: PortalIdentity,
  email: string,
): Promise<Agent | undefined> {
  const [linked] = await db
    .update(agents)
    .set({ externalIssuer: identity.issuer, externalSubject: identity.sub, updatedAt: sql`now()` })
    .where(
      and(
        eq(agents.email, email),
        isNull(agents.externalSubject),
        isNull(agents.passwordHash),
        eq(agents.role, "agent"),
      ),
    )
    .returning();
  return linked;
}

/** A new agent with this identity; undefined when the e-mail or the identity is taken meanwhile. */
export async function createPortalAgent(
  db: Database,
  identity: PortalIdentity,
  who: { email: string; name: string },
): Promise<Agent | undefined> {
  const [created] = await db
    .insert(agents)
    .values({
      email: who.email,
      name: who.name,
      role: "agent",
      passwordHash: null,
      externalIssuer: identity.issuer,
      externalSubject: identity.sub,
    })
    .onConflictDoNothing()
    .returning();
  return created;
}
