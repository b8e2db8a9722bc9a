import "server-only";
import { asc, eq, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { prepared } from "../prepared";
import { agents, type Agent, type AgentRole, type NewAgent } from "../schema";
import { endAgentSessions } from "./sessions";

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

/** Accounts created unless one with the e-mail exists, which is left as it is. */
export async function insertMissingAgents(db: Database, rows: NewAgent[]): Promise<void> {
  await db.insert(agents).values(rows).onConflictDoNothing({ target: agents.email });
}

export function listAgents(db: Database): Promise<Agent[]> {
  return db.select().from(agents).orderBy(asc(agents.email));
}

/** Disabling also ends every open session of the agent (they are refused on their next request). */
export async function setAgentDisabled(
  db: Database,
  email: string,
  disabled: boolean,
): Promise<Agent | undefined> {
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
    if (agent && disabled) await endAgentSessions(tx, agent.id, new Date());
    return agent;
  });
}

/** A new password ends the sessions opened with the old one. */
export async function setAgentPassword(
  db: Database,
  email: string,
  passwordHash: string,
): Promise<Agent | undefined> {
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .update(agents)
      .set({ passwordHash, updatedAt: sql`now()` })
      .where(eq(agents.email, normalizeEmail(email)))
      .returning();
    if (agent) await endAgentSessions(tx, agent.id, new Date());
    return agent;
  });
}
