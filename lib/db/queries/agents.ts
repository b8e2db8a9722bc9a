import "server-only";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { prepared } from "../prepared";
import { agents, sessions, type Agent, type AgentRole, type NewAgent } from "../schema";
import { recordAuditEvent, type AuditActor } from "./audit-events";
import { endAgentSessions, endPasswordSessions, type EndedSession } from "./sessions";
import { endAgentChallenges, updateChallenge } from "./sign-in-challenges";

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findAgentByEmail(db: Database, email: string): Promise<Agent | undefined> {
  const [agent] = await db
    .select()
    .from(agents)
    .where(eq(agents.email, normalizeEmail(email)))
    .limit(1);
  return agent;
}

/** Read on every signed-in request (lib/dal/session.ts), so it is a prepared statement. */
export async function findAgentById(db: Database, id: string): Promise<Agent | undefined> {
  const statement = prepared(db, "find_agent_by_id", (db, statementName) =>
    db
      .select()
      .from(agents)
      .where(eq(agents.id, sql.placeholder("id")))
      .limit(1)
      .prepare(statementName),
  );
  const [agent] = await statement.execute({ id });
  return agent;
}

export class AgentExistsError extends Error {
  override readonly name = "AgentExistsError";
}

export async function insertAgent(
  db: Database,
  input: {
    email: string;
    name: string;
    role: AgentRole;
    passwordHash: string | null;
    /** The password was chosen by someone else (the operator): the first sign-in must change it. */
    passwordChangeRequired?: boolean;
  },
): Promise<Agent> {
  const [agent] = await db
    .insert(agents)
    .values({
      ...input,
      email: normalizeEmail(input.email),
      name: input.name.trim(),
    })
    .onConflictDoNothing({ target: agents.email })
    .returning();
  if (!agent)
    throw new AgentExistsError(`An agent with the e-mail ${normalizeEmail(input.email)} already exists.`);
  return agent;
}

/** Accounts created unless one with the e-mail exists, which is left as it is; returns those created. */
export function insertMissingAgents(db: Database, rows: NewAgent[]): Promise<Agent[]> {
  return db.insert(agents).values(rows).onConflictDoNothing({ target: agents.email }).returning();
}

export function listAgents(db: Database): Promise<Agent[]> {
  return db.select().from(agents).orderBy(asc(agents.email));
}

export interface AgentChange {
  agent: Agent;
  /** The sessions the change ended. */
  endedSessions: EndedSession[];
}

/** Disabling also ends every open session of the agent (they are refused on their next request). */
export async function setAgentDisabled(
  db: Database,
  email: string,
  disabled: boolean,
  now = new Date(),
): Promise<AgentChange | undefined> {
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .update(agents)
      .set(
        disabled
          ? { disabledAt: sql`now()`, updatedAt: sql`now()` }
          : { disabledAt: null, updatedAt: sql`now()` },
      )
      .where(eq(agents.email, normalizeEmail(email)))
      .returning();
    if (!agent) return undefined;
    const endedSessions = disabled ? await endAgentSessions(tx, agent.id, now, "disabled") : [];
    if (disabled) await endAgentChallenges(tx, agent.id, now);
    return { agent, endedSessions };
  });
}

/**
 * A new password ends the agent's sessions: whoever knew the old one is out. `changeRequired`: it was chosen by
 * someone else (the operator's CLI), so the next password sign-in must change it; otherwise the flag is cleared.
 */
export async function setAgentPassword(
  db: Database,
  email: string,
  passwordHash: string,
  now = new Date(),
  { changeRequired = false }: { changeRequired?: boolean } = {},
): Promise<AgentChange | undefined> {
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .update(agents)
      .set({ passwordHash, passwordChangeRequired: changeRequired, updatedAt: sql`now()` })
      .where(eq(agents.email, normalizeEmail(email)))
      .returning();
    if (!agent) return undefined;
    await endAgentChallenges(tx, agent.id, now);
    return { agent, endedSessions: await endAgentSessions(tx, agent.id, now, "password_changed") };
  });
}

/**
 * The agent's own new password (the account page, or the change a sign-in asks for), in one transaction: the hash,
 * no change required any more, every other session of the agent ended ("password_changed"), and the audit trail.
 * The session that asked (`keepSessionId`; null at a sign-in, which has none yet) goes on: a password session's
 * `credential` becomes `credential` (lib/auth/credential.ts's `passwordCredential` of the new hash), which the
 * session check compares with the account's hash. Every other sign-in under way ends. Undefined when there is no such
 * agent, or its password is no longer `previousHash`.
 */
export async function changeOwnPassword(
  db: Database,
  input: {
    agentId: string;
    /** The hash the current password was checked against: if it changed meanwhile, nothing changes. */
    previousHash: string;
    passwordHash: string;
    keepSessionId: string | null;
    /** The sign-in whose step this is (its credential becomes the new one); every other one under way ends. */
    keepChallengeId?: string;
    credential: string;
    now: Date;
  },
): Promise<AgentChange | undefined> {
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .update(agents)
      .set({ passwordHash: input.passwordHash, passwordChangeRequired: false, updatedAt: sql`now()` })
      .where(and(eq(agents.id, input.agentId), eq(agents.passwordHash, input.previousHash)))
      .returning();
    if (!agent) return undefined;
    await endAgentChallenges(tx, agent.id, input.now, { except: input.keepChallengeId });
    if (input.keepChallengeId) {
      await updateChallenge(tx, input.keepChallengeId, {
        credential: input.credential,
        passwordChangedAt: input.now,
      });
    }
    const endedSessions = await endAgentSessions(tx, agent.id, input.now, "password_changed", {
      except: input.keepSessionId ?? undefined,
    });
    if (input.keepSessionId) {
      await tx
        .update(sessions)
        .set({ credential: input.credential })
        .where(
          and(
            eq(sessions.id, input.keepSessionId),
            eq(sessions.agentId, agent.id),
            eq(sessions.method, "password"),
            isNull(sessions.endedAt),
          ),
        );
    }
    await recordAuditEvent(tx, {
      actor: `agent:${agent.id}`,
      agentId: agent.id,
      door: "password",
      action: "agent.password_changed",
      details: { agentId: agent.id, email: agent.email, sessionsEnded: endedSessions.length },
    });
    return { agent, endedSessions };
  });
}

/**
 * The operator's role for password sessions (the other doors give their own). A change ends the agent's password
 * sessions, so none goes on with the role it had; `previousRole` says what it was.
 */
export async function setAgentRole(
  db: Database,
  input: { email: string; role: AgentRole; actor: AuditActor },
  now = new Date(),
): Promise<(AgentChange & { previousRole: AgentRole }) | undefined> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ id: agents.id, role: agents.role })
      .from(agents)
      .where(eq(agents.email, normalizeEmail(input.email)))
      .for("update");
    if (!before) return undefined;
    if (before.role === input.role) {
      const [agent] = await tx.select().from(agents).where(eq(agents.id, before.id));
      return { agent: agent!, endedSessions: [], previousRole: before.role };
    }
    const [agent] = await tx
      .update(agents)
      .set({ role: input.role, updatedAt: sql`now()` })
      .where(eq(agents.id, before.id))
      .returning();
    const endedSessions = await endPasswordSessions(tx, before.id, now, "role_changed");
    await recordAuditEvent(tx, {
      ...input.actor,
      action: "agent.role_changed",
      details: {
        agentId: before.id,
        email: agent!.email,
        door: "password",
        from: before.role,
        to: input.role,
      },
    });
    return { agent: agent!, endedSessions, previousRole: before.role };
  });
}
