import "server-only";
import { and, desc, eq, gt, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../connection";
import { housekeepingDue } from "../housekeeping";
import { prepared } from "../prepared";
import {
  budgetSpent,
  forgetOldBudgets,
  spendOnConflict,
  type BudgetPolicy,
  type BudgetSpent,
} from "./request-budgets";
import {
  agentIdentities,
  agents,
  requestBudgets,
  sessions,
  type AgentRole,
  type SessionEndReason,
  type DoorKind,
  type SessionRow,
} from "../schema";

export interface SessionLimits {
  /** A session with no request for this long has ended. */
  idleMs: number;
  /** A session ends this long after sign-in, however much it is used. */
  absoluteMs: number;
}

/** A session that has just ended, for the security log: whose, through which door, and why. */
export interface EndedSession {
  id: string;
  agentId: string;
  door: string;
  method: DoorKind;
  reason: SessionEndReason;
  /** When it really ended (an idle session ended when its idle limit ran out, not when that was noticed). */
  endedAt: Date;
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

/** Which limit ended a session that nobody ended (the first one it passed), and when. */
function expiry(
  session: Pick<SessionRow, "createdAt" | "lastSeenAt">,
  limits: SessionLimits,
): { reason: "idle" | "absolute"; endedAt: Date } {
  const idleEnd = session.lastSeenAt.getTime() + limits.idleMs;
  const absoluteEnd = session.createdAt.getTime() + limits.absoluteMs;
  return idleEnd <= absoluteEnd
    ? { reason: "idle", endedAt: new Date(idleEnd) }
    : { reason: "absolute", endedAt: new Date(absoluteEnd) };
}

/**
 * A session still holds what its door gave: a password session, the account's password (its credential is
 * lib/auth/credential.ts's `passwordCredential`, computed here by the database) and role now; an identity's, that
 * identity (not unlinked) and the role it gives now. A change to any of these ends the session at its next request,
 * whichever instance it reaches, even one opened while the change was being made. Each part is named, so that a
 * refused session can be told which one failed (`explainDeadSession`) by the same rule.
 */
const isPasswordSession = eq(sessions.method, "password");
const passwordHolds = sql`${sessions.credential} = encode(sha256(convert_to(${agents.passwordHash}, 'UTF8')), 'hex')`;
const identityLinked = sql`${agentIdentities.id} is not null`;
const roleHolds = sql`${sessions.role} = case when ${isPasswordSession} then ${agents.role} else ${agentIdentities.role} end`;
const doorStillGrants = and(
  or(and(isPasswordSession, passwordHolds), and(ne(sessions.method, "password"), identityLinked)),
  roleHolds,
);

export interface NewSession {
  agentId: string;
  method: DoorKind;
  /** `password`, `oidc:<issuer>`, `portal:<issuer>`. */
  door: string;
  /** The identity signed in with; null for a password. */
  identityId: string | null;
  /** The role the door gave at this sign-in: the session's, whatever another door gives the agent. */
  role: AgentRole;
  /** A password session's `passwordCredential` of the hash it was checked against; null for an identity's. */
  credential: string | null;
  userAgent: string | null;
  now: Date;
  limits: SessionLimits;
}

/**
 * Records a new sign-in and returns its session id. Sessions nobody can use any more are pruned on the way (at most
 * once a minute); those that ran out of time without anyone noticing are returned, so their end is logged.
 */
export async function openSession(
  db: Database,
  input: NewSession,
): Promise<{ id: string; expired: EndedSession[] }> {
  let expired: EndedSession[] = [];
  if (housekeepingDue(db, "sessions", input.now)) {
    const pruned = await db.delete(sessions).where(deadSessions(input.now, input.limits)).returning();
    expired = pruned
      .filter((session) => session.endedAt === null)
      .map((session) => ({ ...pick(session), ...expiry(session, input.limits) }));
  }
  const [session] = await db
    .insert(sessions)
    .values({
      agentId: input.agentId,
      method: input.method,
      door: input.door,
      identityId: input.identityId,
      role: input.role,
      credential: input.credential,
      createdAt: input.now,
      lastSeenAt: input.now,
      userAgent: input.userAgent?.slice(0, USER_AGENT_MAX_LENGTH) || null,
    })
    .returning({ id: sessions.id });
  return { id: session!.id, expired };
}

const pick = (session: SessionRow) => ({
  id: session.id,
  agentId: session.agentId,
  door: session.door,
  method: session.method,
});

export interface SessionAgentRow {
  id: string;
  name: string;
  email: string;
  /** The session's role: what its door gave at sign-in (or since, through the same identity). */
  role: AgentRole;
  door: string;
}

/** The touch of a live session (at most once per touch interval), a CTE of both session checks below. */
const seenCte = (db: Database) =>
  db.$with("seen").as(
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

/** The agent of the live session, selected by `query` (the database, or a WITH before the select). */
const liveAgent = (query: Pick<Database, "select">) =>
  query
    .select({
      id: agents.id,
      name: agents.name,
      email: agents.email,
      role: sessions.role,
      door: sessions.door,
    })
    .from(sessions)
    .innerJoin(agents, eq(agents.id, sessions.agentId))
    .leftJoin(agentIdentities, eq(agentIdentities.id, sessions.identityId))
    .where(
      and(
        eq(sessions.id, sql.placeholder("sessionId")),
        eq(sessions.agentId, sql.placeholder("agentId")),
        isNull(sessions.endedAt),
        isNull(agents.disabledAt),
        doorStillGrants,
        gt(sessions.lastSeenAt, sql`${sql.placeholder("idleAfter")}::timestamptz`),
        gt(sessions.createdAt, sql`${sql.placeholder("createdAfter")}::timestamptz`),
      ),
    )
    .limit(1);

interface SessionCheck {
  sessionId: string;
  agentId: string;
  now: Date;
  limits: SessionLimits;
}

const sessionCheckParams = (input: SessionCheck) => {
  const now = input.now.getTime();
  return {
    sessionId: input.sessionId,
    agentId: input.agentId,
    now: input.now.toISOString(),
    touchBefore: new Date(now - touchIntervalMs(input.limits)).toISOString(),
    idleAfter: new Date(now - input.limits.idleMs).toISOString(),
    createdAfter: new Date(now - input.limits.absoluteMs).toISOString(),
  };
};

/**
 * The agent of a live session, in one statement (one round trip on every signed-in request): the session must be
 * the agent's, not ended, within both limits, and the agent enabled. Marks the session as seen (at most once per
 * touch interval) in the same statement.
 */
export async function findSessionAgent(
  db: Database,
  input: SessionCheck,
): Promise<SessionAgentRow | undefined> {
  const statement = prepared(db, "find_session_agent", (db, statementName) =>
    liveAgent(db.with(seenCte(db))).prepare(statementName),
  );
  const [agent] = await statement.execute(sessionCheckParams(input));
  return agent;
}

/**
 * `findSessionAgent` and one request spent from the live session's agent's budget `budgetKey` (lib/db/queries/
 * request-budgets.ts), in the same statement: the sale's door costs one round trip, not two. A session that is not
 * live spends nothing. Budgets stay atomic across instances: the spend is the same upsert as `spendBudget`'s.
 */
export async function findSessionAgentSpending(
  db: Database,
  input: SessionCheck & { budgetKey: string; policy: BudgetPolicy },
): Promise<{ agent: SessionAgentRow; spent: BudgetSpent } | undefined> {
  await forgetOldBudgets(db, input.now);
  const statement = prepared(db, "find_session_agent_spending", (db, statementName) => {
    const seen = seenCte(db);
    const live = db.$with("live").as(liveAgent(db));
    const spent = db.$with("spent").as(
      db
        .insert(requestBudgets)
        .select(
          db
            .select({
              key: sql`${sql.placeholder("budgetKey")}::text`.as("key"),
              windowStartedAt: sql`${sql.placeholder("now")}::timestamptz`.as("window_started_at"),
              used: sql`1`.as("used"),
            })
            .from(live),
        )
        .onConflictDoUpdate(spendOnConflict())
        .returning({ used: requestBudgets.used, windowStartedAt: requestBudgets.windowStartedAt }),
    );
    return db
      .with(seen, live, spent)
      .select({
        id: live.id,
        name: live.name,
        email: live.email,
        role: live.role,
        door: live.door,
        used: spent.used,
        windowStartedAt: spent.windowStartedAt,
      })
      .from(live)
      .innerJoin(spent, sql`true`)
      .prepare(statementName);
  });
  const [row] = await statement.execute({
    ...sessionCheckParams(input),
    budgetKey: input.budgetKey,
    openAfter: new Date(input.now.getTime() - input.policy.windowMs).toISOString(),
  });
  if (!row) return undefined;
  const { used, windowStartedAt, ...agent } = row;
  return { agent, spent: budgetSpent({ used, windowStartedAt }, input.policy) };
}

/** Why a session the check refused is dead (asked only then, so a live session costs nothing more). */
export type DeadSession =
  /** No such row: pruned long ago, or a cookie for another database. */
  | { state: "unknown" }
  /** Ended before this request; the end was logged then. */
  | { state: "ended"; agentId: string; door: string; reason: SessionEndReason | null }
  /**
   * It ran out of time, or what its door gave changed (role, password, identity), and nobody had ended it: ended
   * now, once, so its end is logged once.
   */
  | { state: "ended_now"; session: EndedSession }
  /** Its agent is disabled (disabling ends sessions, so this is a row that raced the disable). */
  | { state: "disabled"; agentId: string; door: string };

/** Which part of `doorStillGrants` no longer holds, as the session's end; null: all of them. */
function supersededBy(row: {
  session: SessionRow;
  passwordHolds: boolean;
  identityLinked: boolean;
  roleHolds: boolean;
}): SessionEndReason | null {
  if (row.session.method === "password" && !row.passwordHolds) return "password_changed";
  if (row.session.method !== "password" && !row.identityLinked) return "identity_unlinked";
  return row.roleHolds ? null : "role_changed";
}

export async function explainDeadSession(
  db: Database,
  input: { sessionId: string; now: Date; limits: SessionLimits },
): Promise<DeadSession> {
  const [row] = await db
    .select({
      session: sessions,
      disabledAt: agents.disabledAt,
      passwordHolds: sql<boolean>`coalesce(${passwordHolds}, false)`,
      identityLinked: sql<boolean>`${identityLinked}`,
      roleHolds: sql<boolean>`coalesce(${roleHolds}, false)`,
    })
    .from(sessions)
    .innerJoin(agents, eq(agents.id, sessions.agentId))
    .leftJoin(agentIdentities, eq(agentIdentities.id, sessions.identityId))
    .where(eq(sessions.id, input.sessionId))
    .limit(1);
  if (!row) return { state: "unknown" };
  const { session } = row;
  if (session.endedAt !== null) {
    return { state: "ended", agentId: session.agentId, door: session.door, reason: session.endReason };
  }
  const now = input.now.getTime();
  const timedOut =
    session.lastSeenAt.getTime() <= now - input.limits.idleMs ||
    session.createdAt.getTime() <= now - input.limits.absoluteMs;
  if (row.disabledAt) return { state: "disabled", agentId: session.agentId, door: session.door };
  const changed = supersededBy(row);
  // Nothing about the session itself refuses it (a cookie naming another agent): it is left as it is.
  if (!timedOut && !changed) return { state: "unknown" };
  const ended = timedOut ? expiry(session, input.limits) : { reason: changed!, endedAt: input.now };
  const [marked] = await db
    .update(sessions)
    .set({ endedAt: ended.endedAt, endReason: ended.reason })
    .where(and(eq(sessions.id, session.id), isNull(sessions.endedAt)))
    .returning({ id: sessions.id });
  // Another request noticed it first and logged it.
  if (!marked) return { state: "ended", agentId: session.agentId, door: session.door, reason: ended.reason };
  return { state: "ended_now", session: { ...pick(session), ...ended } };
}

/** Ends the open sessions `where` selects, for `reason`; returns them. */
export async function endSessionsWhere(
  db: Database,
  where: SQL | undefined,
  now: Date,
  reason: SessionEndReason,
): Promise<EndedSession[]> {
  const ended = await db
    .update(sessions)
    .set({ endedAt: now, endReason: reason })
    .where(and(where, isNull(sessions.endedAt)))
    .returning();
  return ended.map((session) => ({ ...pick(session), reason, endedAt: now }));
}

/** Ends one session (sign-out, or a new sign-in in the same browser); undefined when it had already ended. */
export async function endSession(
  db: Database,
  sessionId: string,
  now: Date,
  reason: SessionEndReason,
): Promise<EndedSession | undefined> {
  const [ended] = await endSessionsWhere(db, eq(sessions.id, sessionId), now, reason);
  return ended;
}

/**
 * Ends every open session of an agent ("sign out everywhere", disable, new password, the operator), but `except` (the
 * session that asked); returns them.
 */
export function endAgentSessions(
  db: Database,
  agentId: string,
  now: Date,
  reason: SessionEndReason,
  { except }: { except?: string } = {},
): Promise<EndedSession[]> {
  const others = except ? sql`${sessions.id} <> ${except}` : undefined;
  return endSessionsWhere(db, and(eq(sessions.agentId, agentId), others), now, reason);
}

/** Ends the agent's password sessions (a new role or password is the password door's). */
export function endPasswordSessions(
  db: Database,
  agentId: string,
  now: Date,
  reason: SessionEndReason,
): Promise<EndedSession[]> {
  return endSessionsWhere(
    db,
    and(eq(sessions.agentId, agentId), eq(sessions.method, "password")),
    now,
    reason,
  );
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
