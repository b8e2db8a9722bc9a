import "server-only";
import type { Route } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { doorName, doorOpen, type Door } from "@/lib/auth/doors";
import { resolveAuthSecret } from "@/lib/auth/secret";
import { sessionCookieName } from "@/lib/auth/session-cookie";
import { readSessionCookie, type SessionClaims } from "@/lib/auth/session-token";
import { getDb } from "@/lib/db";
import {
  endAgentSessions,
  endSession,
  explainDeadSession,
  findSessionAgent,
  findSessionAgentSpending,
  openSession,
  type EndedSession,
  type SessionAgentRow,
} from "@/lib/db/queries/sessions";
import type { BudgetPolicy, BudgetSpent } from "@/lib/db/queries/request-budgets";
import type { AgentRole, SessionEndReason } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { clientAddress } from "@/lib/http/forwarded";
import { safeReturnPath } from "@/lib/safe-return-path";
import { securityEvent, securityEventOnce } from "@/lib/security-log";
import { endedSessionEvent } from "@/lib/security-log/line";

export interface SessionAgent {
  id: string;
  name: string;
  email: string;
  /** The session's role: what its door gave, never what another door gives the same person. */
  role: AgentRole;
  sessionId: string;
  /** How this session came in: `password`, `oidc:<issuer>`, `portal:<issuer>`. */
  door: string;
}

/**
 * THE session check. A valid cookie is not enough: its session row must be live (not ended by sign-out, "sign out
 * everywhere", disable or a new password; used within the idle limit; younger than the absolute limit) and its
 * agent enabled — one database round trip, which also marks the session as seen. Auth.js's own session reads
 * (auth.ts, `/api/auth/session`) go through here too. A refused one is explained to the security log.
 */
export async function liveSessionAgent(
  claims: SessionClaims,
  now = new Date(),
): Promise<SessionAgent | null> {
  const db = await getDb();
  const agent = await findSessionAgent(db, { ...claims, now, limits: getConfig().sessions });
  return admitted(claims, agent, now);
}

/** The session's agent, once its door is still open; null (its end logged) when the check refused it. */
async function admitted(
  claims: SessionClaims,
  agent: SessionAgentRow | undefined,
  now: Date,
): Promise<SessionAgent | null> {
  if (!agent) {
    await noteDeadSession(claims, now);
    return null;
  }
  if (!doorOpen(agent.door, agent.role, getConfig())) {
    const ended = await endSession(await getDb(), claims.sessionId, now, "door_closed");
    if (ended) await logEnded([ended]);
    return null;
  }
  return { ...agent, sessionId: claims.sessionId };
}

const DEAD_SESSION_REASONS = {
  unknown: "session_unknown",
  ended: "session_ended",
  disabled: "account_disabled",
} as const;

/**
 * A cookie whose session is dead: the first request after a session ran out of time, or after what its door gave
 * changed, ends it in the log (once); any other (a cookie replayed after sign-out, an account disabled meanwhile) is
 * a refused access, logged once per session every few minutes per instance, however often the browser retries.
 */
async function noteDeadSession(claims: SessionClaims, now: Date): Promise<void> {
  const dead = await explainDeadSession(await getDb(), {
    sessionId: claims.sessionId,
    now,
    limits: getConfig().sessions,
  });
  if (dead.state === "ended_now") return logEnded([dead.session]);
  const known = dead.state !== "unknown";
  await securityEventOnce(`dead-session:${claims.sessionId}`, "access.refused", {
    outcome: "failure",
    door: known ? dead.door : null,
    agentId: known ? dead.agentId : claims.agentId,
    sessionId: claims.sessionId,
    reason: DEAD_SESSION_REASONS[dead.state],
    ...(dead.state === "ended" && dead.reason ? { details: { endReason: dead.reason } } : {}),
  });
}

/** One line per session that ended (whoever ended it, or its time running out). */
async function logEnded(ended: readonly EndedSession[]): Promise<void> {
  for (const session of ended) await securityEvent(...endedSessionEvent(session));
}

/**
 * The session an incoming Cookie header names, if the cookie is ours and intact (live or not: the row decides);
 * "unreadable" when there is a session cookie that names none (forged, tampered with, another AUTH_SECRET's).
 */
async function sessionClaimsOf(cookieHeader: string | null): Promise<SessionClaims | "unreadable" | null> {
  const config = getConfig();
  return readSessionCookie(cookieHeader, {
    cookieName: sessionCookieName(config),
    secret: resolveAuthSecret(config),
  });
}

/** The signed-in agent of this request (pages, server actions, route handlers), checked once per request. */
export const verifySession = cache(async (): Promise<SessionAgent | null> => {
  const claims = await requestClaims();
  return claims ? liveSessionAgent(claims) : null;
});

/** The session this request's cookie names; null without one, or for one that names none (logged, see below). */
async function requestClaims(): Promise<SessionClaims | null> {
  const requestHeaders = await headers();
  const claims = await sessionClaimsOf(requestHeaders.get("cookie"));
  if (claims !== "unreadable") return claims;
  await noteUnreadableCookie(requestHeaders);
  return null;
}

/** A session cookie that names no session (forged, tampered with, another AUTH_SECRET's), once a while per address. */
async function noteUnreadableCookie(requestHeaders: Headers): Promise<void> {
  const address = clientAddress(requestHeaders);
  await securityEventOnce(`bad-cookie:${address}`, "access.refused", {
    outcome: "failure",
    door: null,
    agentId: null,
    address,
    reason: "session_cookie_invalid",
  });
}

/**
 * `verifySession` and one request of the agent's budget spent (lib/dal/limits.ts), in one round trip: the sale's
 * door. `budgetKey` names the budget of the session's agent. A cookie that names no live session spends nothing;
 * one whose door has closed since spends one request as its session ends. Not cached: each call spends.
 */
export async function verifySessionSpending(
  budgetKey: (agentId: string) => string,
  policy: BudgetPolicy,
  now = new Date(),
): Promise<{ agent: SessionAgent; spent: BudgetSpent } | null> {
  const claims = await requestClaims();
  if (!claims) return null;
  const found = await findSessionAgentSpending(await getDb(), {
    ...claims,
    now,
    limits: getConfig().sessions,
    budgetKey: budgetKey(claims.agentId),
    policy,
  });
  const agent = await admitted(claims, found?.agent, now);
  return agent && found ? { agent, spent: found.spent } : null;
}

/** For pages: the signed-in agent, or a redirect to the sign-in page that comes back here. */
export async function requireAgent(returnTo: string): Promise<SessionAgent> {
  const agent = await verifySession();
  if (!agent) redirect(`/sign-in?callbackUrl=${encodeURIComponent(safeReturnPath(returnTo))}` as Route);
  return agent;
}

/** Who signed in, through which door, and what that door gave: what a new session is made of. */
export interface SignIn {
  agentId: string;
  door: Door;
  /** The identity signed in with; null for a password. */
  identityId: string | null;
  role: AgentRole;
  /** A password's `passwordCredential` (lib/db/queries/sessions.ts); null for an identity. */
  credential: string | null;
}

/**
 * What a sign-in did to the account, in the security log (the audit trail has it already, written with the change):
 * the account created, an identity linked (an invitation taken, a password account or a legacy portal identity
 * adopted), or the role this door gives changed since its last sign-in.
 */
export async function identityEvents(
  signIn: SignIn,
  change: { outcome: string; previousRole: AgentRole | null },
): Promise<void> {
  const fields = { outcome: "success" as const, door: doorName(signIn.door), agentId: signIn.agentId };
  if (change.outcome === "created") {
    await securityEvent("account.created", { ...fields, details: { role: signIn.role } });
  } else if (change.outcome !== "known") {
    await securityEvent("account.identity_linked", { ...fields, reason: change.outcome });
  }
  if (change.previousRole) {
    await securityEvent("account.role_changed", {
      ...fields,
      details: { from: change.previousRole, to: signIn.role },
    });
  }
}

/**
 * Records a sign-in (any door) and returns the id its cookie will carry. A session this browser's cookie still
 * names ends first: the new cookie replaces it here, and a copy of the old one must not outlive it elsewhere.
 */
export async function startSession(signIn: SignIn): Promise<string> {
  const requestHeaders = await headers();
  const userAgent = requestHeaders.get("user-agent");
  await endSessionNamedBy(requestHeaders.get("cookie"), "replaced");
  const door = doorName(signIn.door);
  const { id, expired } = await openSession(await getDb(), {
    agentId: signIn.agentId,
    method: signIn.door.kind,
    door,
    identityId: signIn.identityId,
    role: signIn.role,
    credential: signIn.credential,
    userAgent,
    now: new Date(),
    limits: getConfig().sessions,
  });
  await logEnded(expired);
  await securityEvent("auth.sign_in", {
    outcome: "success",
    door,
    agentId: signIn.agentId,
    sessionId: id,
    details: { role: signIn.role },
  });
  return id;
}

/**
 * Sign-out (the server action, Auth.js's endpoint) and a sign-in over an old cookie: the session that Cookie header
 * names ends on every instance at once. Called before the cookie is cleared or replaced, so a database that cannot
 * take it fails the request instead of leaving a copy of the cookie alive. Tells which session ended (null when
 * there was none, or it had ended): after an OIDC one, sign-out offers the IdP's too.
 */
export async function endSessionNamedBy(
  cookieHeader: string | null,
  reason: Extract<SessionEndReason, "signed_out" | "replaced">,
): Promise<EndedSession | null> {
  const claims = await sessionClaimsOf(cookieHeader);
  if (!claims || claims === "unreadable") return null;
  const ended = await endSession(await getDb(), claims.sessionId, new Date(), reason);
  if (!ended) return null;
  await logEnded([ended]);
  return ended;
}

/** "Sair de todos os dispositivos": every other session of the agent ends (this one ends by signing out). */
export async function endOtherSessions(agent: SessionAgent): Promise<number> {
  const ended = await endAgentSessions(await getDb(), agent.id, new Date(), "signed_out_elsewhere", {
    except: agent.sessionId,
  });
  await logEnded(ended);
  return ended.length;
}

/**
 * A signed-in agent asked for what their session does not allow (another agent's sale, a supervisor's page or
 * action): the answer stays what it was (a 404, "not allowed"), and the security log says who tried what.
 */
export async function logRefusedAccess(
  agent: SessionAgent,
  reason: "other_agents_sale" | "supervisor_page" | "supervisor_action",
  details: Record<string, string>,
): Promise<void> {
  await securityEvent("access.refused", {
    outcome: "failure",
    door: agent.door,
    agentId: agent.id,
    sessionId: agent.sessionId,
    reason,
    details: { role: agent.role, ...details },
  });
}
