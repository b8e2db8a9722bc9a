import "server-only";
import { and, asc, eq, gt, inArray, isNull, notExists, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database } from "../connection";
import {
  agentIdentities,
  agents,
  sessions,
  type Agent,
  type AgentIdentity,
  type AgentRole,
  type IdentityKind,
} from "../schema";
import { doorName } from "@/lib/auth/doors";
import { unlessTaken } from "../unique-violation";
import { agentActor, recordAuditEvent, type AuditActor } from "./audit-events";
import { endSessionsWhere, type EndedSession } from "./sessions";

/** Who someone is at one door: the IdP's or the portal's issuer, and their id there. */
export interface IdentityKey {
  kind: IdentityKind;
  issuer: string;
  subject: string;
}

export interface LinkedAgent {
  agent: Agent;
  identity: AgentIdentity;
}

/** Someone signing in for themselves, through the door of `key`. */
const selfActor = (agentId: string, key: Pick<IdentityKey, "kind" | "issuer">) =>
  agentActor({ id: agentId, door: doorName(key) });

const isKey = ({ kind, issuer, subject }: IdentityKey) =>
  and(
    eq(agentIdentities.kind, kind),
    eq(agentIdentities.issuer, issuer),
    eq(agentIdentities.subject, subject),
  );

/** The agent this identity is linked to, if any: the only account a sign-in through it ever reaches. */
export async function findIdentity(db: Database, key: IdentityKey): Promise<LinkedAgent | undefined> {
  const [found] = await db
    .select({ agent: agents, identity: agentIdentities })
    .from(agentIdentities)
    .innerJoin(agents, eq(agents.id, agentIdentities.agentId))
    .where(isKey(key))
    .limit(1);
  return found;
}

/** Whether the enabled agent `agentId` is the one `key` is linked to. */
export async function isIdentityOf(db: Database, agentId: string, key: IdentityKey): Promise<boolean> {
  const [found] = await db
    .select({ id: agents.id })
    .from(agentIdentities)
    .innerJoin(agents, eq(agents.id, agentIdentities.agentId))
    .where(and(isKey(key), eq(agents.id, agentId), isNull(agents.disabledAt)))
    .limit(1);
  return Boolean(found);
}

/**
 * A new agent (no password) whose one identity is `key`: undefined when its e-mail is another account's, or the
 * identity was linked meanwhile (two first sign-ins at once). Nothing is written then.
 */
export async function createAgentWithIdentity(
  db: Database,
  input: { key: IdentityKey; email: string; name: string; role: AgentRole },
): Promise<LinkedAgent | undefined> {
  return unlessTaken(() =>
    db.transaction(async (tx) => {
      const [agent] = await tx
        .insert(agents)
        .values({ email: input.email, name: input.name, passwordHash: null })
        .onConflictDoNothing({ target: agents.email })
        .returning();
      if (!agent) return undefined;
      const [identity] = await tx
        .insert(agentIdentities)
        .values({ ...input.key, agentId: agent.id, role: input.role, linkedBy: "sign_in" })
        .returning();
      await recordAuditEvent(tx, {
        ...selfActor(agent.id, input.key),
        action: "agent.created",
        details: { email: agent.email, identity: doorName(input.key), role: input.role },
      });
      return { agent, identity: identity! };
    }),
  );
}

/**
 * The operator links `key` to the agent: undefined when the identity is someone's already, or the agent already has
 * another identity at this door (an operator unlinks first). An identity already linked to this agent is confirmed:
 * marked `operator`, it is no longer one to review.
 */
export async function linkIdentity(
  db: Database,
  input: { agentId: string; key: IdentityKey; actor: AuditActor },
): Promise<{ identity: AgentIdentity; linked: boolean } | undefined> {
  return db.transaction(async (tx) => {
    await lockAgent(tx, input.agentId);
    const [linked] = await tx
      .insert(agentIdentities)
      .values({ ...input.key, agentId: input.agentId, linkedBy: "operator" })
      .onConflictDoNothing()
      .returning();
    if (!linked) {
      // The operator confirms a link that is there already (one the migration found): it is theirs from now on.
      const [own] = await tx
        .update(agentIdentities)
        .set({ linkedBy: "operator" })
        .where(and(isKey(input.key), eq(agentIdentities.agentId, input.agentId)))
        .returning();
      if (own) await recordIdentityLinked(tx, input.actor, own);
      return own && { identity: own, linked: false };
    }
    await recordIdentityLinked(tx, input.actor, linked);
    return { identity: linked, linked: true };
  });
}

async function recordIdentityLinked(db: Database, actor: AuditActor, identity: AgentIdentity) {
  await recordAuditEvent(db, {
    ...actor,
    action: "agent.identity_linked",
    details: {
      agentId: identity.agentId,
      identity: doorName(identity),
      subject: identity.subject,
      linkedBy: identity.linkedBy,
    },
  });
}

/**
 * An operator's invitation (`agents link --idp` without `--subject`): the first sign-in through the IdP `issuer`
 * whose verified e-mail is the agent's takes it, before `until`. Undefined when the agent already has an identity
 * at that IdP.
 */
export async function inviteIdentity(
  db: Database,
  input: { agentId: string; issuer: string; until: Date; actor: AuditActor },
): Promise<AgentIdentity | undefined> {
  return db.transaction(async (tx) => {
    await lockAgent(tx, input.agentId);
    const [invited] = await tx
      .insert(agentIdentities)
      .values({
        agentId: input.agentId,
        kind: "oidc",
        issuer: input.issuer,
        subject: null,
        invitedUntil: input.until,
        linkedBy: "invitation",
      })
      .onConflictDoUpdate({
        target: [agentIdentities.agentId, agentIdentities.kind, agentIdentities.issuer],
        set: { invitedUntil: input.until },
        setWhere: isNull(agentIdentities.subject),
      })
      .returning();
    if (invited) await recordIdentityLinked(tx, input.actor, invited);
    return invited;
  });
}

/** The invitation of the agent with `email` at the IdP `issuer`, still open at `now`: it becomes `subject`. */
export async function takeInvitation(
  db: Database,
  input: { issuer: string; subject: string; email: string; role: AgentRole; now: Date },
): Promise<LinkedAgent | undefined> {
  return unlessTaken(() =>
    db.transaction(async (tx) => {
      const [identity] = await tx
        .update(agentIdentities)
        .set({ subject: input.subject, invitedUntil: null, role: input.role })
        .where(
          and(
            eq(agentIdentities.kind, "oidc"),
            eq(agentIdentities.issuer, input.issuer),
            isNull(agentIdentities.subject),
            gt(agentIdentities.invitedUntil, input.now),
            eq(
              agentIdentities.agentId,
              tx
                .select({ id: agents.id })
                .from(agents)
                .where(and(eq(agents.email, input.email), isNull(agents.disabledAt))),
            ),
          ),
        )
        .returning();
      if (!identity) return undefined;
      await recordIdentityLinked(tx, selfActor(identity.agentId, identity), identity);
      const [agent] = await tx.select().from(agents).where(eq(agents.id, identity.agentId));
      return { agent: agent!, identity };
    }),
  );
}

/**
 * OIDC_ADOPT_PASSWORD_ACCOUNTS: the IdP's identity takes the enabled account with `email` when it has a password
 * and no other identity at all (an invitation included). Undefined otherwise; nothing is written then.
 */
export async function adoptPasswordAccount(
  db: Database,
  input: { key: IdentityKey; email: string; role: AgentRole },
): Promise<LinkedAgent | undefined> {
  // A unique index refusing it: the identity was linked elsewhere meanwhile (two first sign-ins at once).
  return unlessTaken(() =>
    db.transaction(async (tx) => {
      // Locked while it is checked and linked: an operator's link or another door's adoption waits, then finds it
      // taken, so the account never ends with a password and two doors it was not given.
      const [candidate] = await tx
        .select()
        .from(agents)
        .where(
          and(
            eq(agents.email, input.email),
            sql`${agents.passwordHash} is not null`,
            isNull(agents.disabledAt),
          ),
        )
        .for("update");
      if (!candidate) return undefined;
      const [other] = await tx
        .select({ id: agentIdentities.id })
        .from(agentIdentities)
        .where(eq(agentIdentities.agentId, candidate.id))
        .limit(1);
      if (other) return undefined;
      const [identity] = await tx
        .insert(agentIdentities)
        .values({ ...input.key, agentId: candidate.id, role: input.role, linkedBy: "adoption" })
        .returning();
      await recordIdentityLinked(tx, selfActor(candidate.id, input.key), identity!);
      return { agent: candidate, identity: identity! };
    }),
  );
}

/** Holds the agent's row until the transaction ends: one change to its doors at a time. */
async function lockAgent(db: Database, agentId: string): Promise<void> {
  await db.select({ id: agents.id }).from(agents).where(eq(agents.id, agentId)).for("update");
}

/**
 * A portal identity recorded before tokens named their issuer ('') takes the issuer of the one portal that may adopt
 * them, unless another agent already has that identity.
 */
export async function adoptLegacyPortalIdentity(
  db: Database,
  input: { issuer: string; subject: string },
): Promise<LinkedAgent | undefined> {
  const taken = alias(agentIdentities, "taken");
  // Two first tokens of the same agent at once: the second finds its update refused by the identity's index.
  return unlessTaken(() =>
    db.transaction(async (tx) => {
      const [identity] = await tx
        .update(agentIdentities)
        .set({ issuer: input.issuer, linkedBy: "legacy_adoption" })
        .where(
          and(
            eq(agentIdentities.kind, "portal"),
            eq(agentIdentities.issuer, ""),
            eq(agentIdentities.subject, input.subject),
            notExists(
              tx
                .select({ id: taken.id })
                .from(taken)
                .where(
                  and(
                    eq(taken.kind, "portal"),
                    eq(taken.issuer, input.issuer),
                    sql`(${taken.subject} = ${input.subject} or ${taken.agentId} = ${agentIdentities.agentId})`,
                  ),
                ),
            ),
          ),
        )
        .returning();
      if (!identity) return undefined;
      await recordIdentityLinked(tx, selfActor(identity.agentId, identity), identity);
      const [agent] = await tx.select().from(agents).where(eq(agents.id, identity.agentId));
      return { agent: agent!, identity };
    }),
  );
}

export interface IdentitySignIn {
  /** The agent as renamed by the IdP; undefined when no name was given. */
  renamed?: Agent;
  /** The role this door gave at its previous sign-in, when this one changed it (null otherwise). */
  roleChangedFrom: AgentRole | null;
}

/**
 * Every sign-in through an identity: when, the role the door gives now (also on the identity's other open sessions,
 * which are that door's), and the IdP's name for the person where it gives one. Undefined when an operator unlinked
 * the identity meanwhile.
 */
export async function recordIdentitySignIn(
  db: Database,
  input: { identityId: string; role: AgentRole; name?: string; now: Date },
): Promise<IdentitySignIn | undefined> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({
        role: agentIdentities.role,
        agentId: agentIdentities.agentId,
        kind: agentIdentities.kind,
        issuer: agentIdentities.issuer,
      })
      .from(agentIdentities)
      .where(eq(agentIdentities.id, input.identityId))
      .for("update");
    // Unlinked by an operator while this sign-in was under way: it signs no one in.
    if (!before) return undefined;
    await tx
      .update(agentIdentities)
      .set({ role: input.role, lastSignInAt: input.now })
      .where(eq(agentIdentities.id, input.identityId));
    // The first sign-in's role is the account's first at this door, not a change.
    const roleChangedFrom = before.role !== null && before.role !== input.role ? before.role : null;
    if (roleChangedFrom) {
      await tx
        .update(sessions)
        .set({ role: input.role })
        .where(and(eq(sessions.identityId, input.identityId), isNull(sessions.endedAt)));
      await recordAuditEvent(tx, {
        ...selfActor(before.agentId, before),
        action: "agent.role_changed",
        details: {
          agentId: before.agentId,
          door: doorName(before),
          from: before.role,
          to: input.role,
        },
      });
    }
    if (!input.name) return { roleChangedFrom };
    const [renamed] = await tx
      .update(agents)
      .set({ name: input.name, updatedAt: sql`now()` })
      .where(eq(agents.id, before.agentId))
      .returning();
    return { renamed, roleChangedFrom };
  });
}

/**
 * The operator's unlink: the agent's identities at a door go (every IdP identity, or one portal's), and the
 * sessions opened through them end with them.
 */
export async function unlinkIdentities(
  db: Database,
  input: { agentId: string; kind: IdentityKind; issuer?: string; now: Date; actor: AuditActor },
): Promise<{ unlinked: AgentIdentity[]; endedSessions: EndedSession[] }> {
  return db.transaction(async (tx) => {
    const door = and(
      eq(agentIdentities.agentId, input.agentId),
      eq(agentIdentities.kind, input.kind),
      input.issuer === undefined ? undefined : eq(agentIdentities.issuer, input.issuer),
    );
    const ids = (
      await tx.select({ id: agentIdentities.id }).from(agentIdentities).where(door).for("update")
    ).map((row) => row.id);
    if (ids.length === 0) return { unlinked: [], endedSessions: [] };
    const endedSessions = await endSessionsWhere(
      tx,
      inArray(sessions.identityId, ids),
      input.now,
      "identity_unlinked",
    );
    const unlinked = await tx.delete(agentIdentities).where(inArray(agentIdentities.id, ids)).returning();
    for (const identity of unlinked) {
      await recordAuditEvent(tx, {
        ...input.actor,
        action: "agent.identity_unlinked",
        details: {
          agentId: identity.agentId,
          identity: doorName(identity),
          subject: identity.subject,
          sessionsEnded: endedSessions.length,
        },
      });
    }
    return { unlinked, endedSessions };
  });
}

/** Every identity (and invitation), by agent, for the CLI's list. */
export function listIdentities(db: Database): Promise<AgentIdentity[]> {
  return db
    .select()
    .from(agentIdentities)
    .orderBy(asc(agentIdentities.agentId), asc(agentIdentities.kind), asc(agentIdentities.issuer));
}

export interface AccountToReview {
  agentId: string;
  email: string;
  /** Its doors, `oidc:<issuer>` and `portal:<issuer>` (`portal:` alone: a legacy one, issuer unknown). */
  doors: string[];
}

/**
 * Accounts holding an identity that migration 0013 could not tell was created with them: earlier versions linked
 * identities to existing accounts by e-mail, so the door may be someone else's. The operator decides, with
 * `agents unlink`, or by confirming each link (`agents link` again); until then the start-up log names them.
 */
export async function accountsToReview(db: Database): Promise<AccountToReview[]> {
  return db
    .select({
      agentId: agents.id,
      email: agents.email,
      doors: sql<
        string[]
      >`array_agg(${agentIdentities.kind}::text || ':' || ${agentIdentities.issuer} order by ${agentIdentities.kind}, ${agentIdentities.issuer})`,
    })
    .from(agentIdentities)
    .innerJoin(agents, eq(agents.id, agentIdentities.agentId))
    .where(sql`${agentIdentities.subject} is not null`)
    .groupBy(agents.id, agents.email)
    .having(sql`bool_or(${agentIdentities.linkedBy} = 'migration')`)
    .orderBy(asc(agents.email));
}
