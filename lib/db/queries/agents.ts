import "server-only";
import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { prepared } from "../prepared";
import { agents, type Agent, type AgentRole, type NewAgent } from "../schema";
import { recordAuditEvent, type AuditActor } from "./audit-events";
import { endAgentSessions, endPasswordSessions, type EndedSession } from "./sessions";

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
  input: { email: string; name: string; role: AgentRole; passwordHash: string | null },
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
    return { agent, endedSessions };
  });
}

/** A new password ends the agent's sessions: whoever knew the old one is out. */
export async function setAgentPassword(
  db: Database,
  email: string,
  passwordHash: string,
  now = new Date(),
): Promise<AgentChange | undefined> {
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .update(agents)
      .set({ passwordHash, updatedAt: sql`now()` })
      .where(eq(agents.email, normalizeEmail(email)))
      .returning();
    if (!agent) return undefined;
    return { agent, endedSessions: await endAgentSessions(tx, agent.id, now, "password_changed") };
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
