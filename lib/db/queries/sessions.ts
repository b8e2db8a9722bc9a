import "server-only";
import { and, desc, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { housekeepingDue } from "../housekeeping";
import { prepared } from "../prepared";
import { agents, sessions, type SessionMethod, type SessionRow } from "../schema";

export interface SessionLimits {
  /** A session with no request for this long has ended. */
  idleMs: number;
  /** A session ends this long after sign-in, however much it is used. */
  absoluteMs: number;
}

const USER_AGENT_MAX_LENGTH = 255;
// Writing `last_seen_at` on every request would make every page view a write; once a minute (or a tenth of a
// short idle limit) keeps the idle limit accurate to that much.
const touchIntervalMs = (limits: SessionLimits) => Math.min(60_000, Math.floor(limits.idleMs / 10));

/** Sessions that can no longer be used: ended, idle past the limit, or older than the absolute limit. */
function deadSessions(now: Date, limits: SessionLimits) {
  return or(
    sql`${sessions.endedAt} is not null`,
    lt(sessions.lastSeenAt, new Date(now.getTime() - limits.idleMs)),
    lt(sessions.createdAt, new Date(now.getTime() - limits.absoluteMs)),
  );
}

/**
 * Records a new sign-in and returns its session id; sessions nobody can use any more are pruned on the way (at
 * most once a minute).
 */
export async function openSession(
  db: Database,
  input: {
    agentId: string;
    method: SessionMethod;
    userAgent: string | null;
    now: Date;
    limits: SessionLimits;
  },
): Promise<string> {
  if (housekeepingDue(db, "sessions", input.now)) {
    await db.delete(sessions).where(deadSessions(input.now, input.limits));
  }
  const [session] = await db
    .insert(sessions)
    .values({
      agentId: input.agentId,
      method: input.method,
      createdAt: input.now,
      lastSeenAt: input.now,
      userAgent: input.userAgent?.slice(0, USER_AGENT_MAX_LENGTH) || null,
    })
    .returning({ id: sessions.id });
  return session!.id;
}

export interface SessionAgentRow {
  id: string;
  name: string;
  email: string;
  role: (typeof agents.$inferSelect)["role"];
}

/**
 * The agent of a live session, in one statement (one round trip on every signed-in request): the session must be
 * the agent's, not ended, within both limits, and the agent enabled. Marks the session as seen (at most once per
 * touch interval) in the same statement.
 */
export async function findSessionAgent(
  db: Database,
  input: { sessionId: string; agentId: string; now: Date; limits: SessionLimits },
): Promise<SessionAgentRow | undefined> {
  const statement = prepared(db, "find_session_agent", (db, statementName) => {
    const seen = db.$with("seen").as(
      db
        .update(sessions)
        .set({ lastSeenAt: sql`${sql.placeholder("now")}::timestamptz` })
        .where(
          and(
            eq(sessions.id, sql.placeholder("sessionId")),
            isNull(sessions.endedAt),
            lt(sessions.lastSeenAt, sql`${sql.placeholder("touchBefore")}::timestamptz`),
            // A session already past a limit stays dead: touching it would revive it for the next request.
            gt(sessions.lastSeenAt, sql`${sql.placeholder("idleAfter")}::timestamptz`),
            gt(sessions.createdAt, sql`${sql.placeholder("createdAfter")}::timestamptz`),
          ),
        )
        .returning({ id: sessions.id }),
    );
    return db
      .with(seen)
      .select({ id: agents.id, name: agents.name, email: agents.email, role: agents.role })
      .from(sessions)
      .innerJoin(agents, eq(agents.id, sessions.agentId))
      .where(
        and(
          eq(sessions.id, sql.placeholder("sessionId")),
          eq(sessions.agentId, sql.placeholder("agentId")),
          isNull(sessions.endedAt),
          isNull(agents.disabledAt),
          gt(sessions.lastSeenAt, sql`${sql.placeholder("idleAfter")}::timestamptz`),
          gt(sessions.createdAt, sql`${sql.placeholder("createdAfter")}::timestamptz`),
        ),
      )
      .limit(1)
      .prepare(statementName);
  });
  const now = input.now.getTime();
  const [agent] = await statement.execute({
    sessionId: input.sessionId,
    agentId: input.agentId,
    now: input.now.toISOString(),
    touchBefore: new Date(now - touchIntervalMs(input.limits)).toISOString(),
    idleAfter: new Date(now - input.limits.idleMs).toISOString(),
    createdAfter: new Date(now - input.limits.absoluteMs).toISOString(),
  });
  return agent;
}

/** Ends one session (sign-out); how it was signed in to, or null when it had already ended. */
export async function endSession(db: Database, sessionId: string, now: Date): Promise<SessionMethod | null> {
  const [ended] = await db
    .update(sessions)
    .set({ endedAt: now })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.endedAt)))
    .returning({ method: sessions.method });
  return ended?.method ?? null;
}

/** Ends every open session of an agent ("sign out everywhere", disable, new password); returns how many. */
export async function endAgentSessions(db: Database, agentId: string, now: Date): Promise<number> {
  const ended = await db
    .update(sessions)
    .set({ endedAt: now })
    .where(and(eq(sessions.agentId, agentId), isNull(sessions.endedAt)))
    .returning({ id: sessions.id });
  return ended.length;
}

/** An agent's sessions that can still be used, newest first. */
export function listOpenSessions(
  db: Database,
  agentId: string,
  now: Date,
  limits: SessionLimits,
): Promise<SessionRow[]> {
  return db
    .select()
    .from(sessions)
    .where(
      and(
        eq(sessions.agentId, agentId),
        isNull(sessions.endedAt),
        gt(sessions.lastSeenAt, new Date(now.getTime() - limits.idleMs)),
        gt(sessions.createdAt, new Date(now.getTime() - limits.absoluteMs)),
      ),
    )
    .orderBy(desc(sessions.createdAt));
}
