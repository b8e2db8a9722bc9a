import "server-only";
import type { Route } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { resolveAuthSecret } from "@/lib/auth/secret";
import { sessionCookieName } from "@/lib/auth/session-cookie";
import { readSessionCookie, type SessionClaims } from "@/lib/auth/session-token";
import { getDb } from "@/lib/db";
import { endAgentSessions, endSession, findSessionAgent, openSession } from "@/lib/db/queries/sessions";
import type { AgentRole, SessionMethod } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { safeReturnPath } from "@/lib/safe-return-path";

export interface SessionAgent {
  id: string;
  name: string;
  email: string;
  role: AgentRole;
  sessionId: string;
}

/**
 * THE session check. A valid cookie is not enough: its session row must be live (not ended by sign-out, "sign out
 * everywhere", disable or a new password; used within the idle limit; younger than the absolute limit) and its
 * agent enabled — one database round trip, which also marks the session as seen. Auth.js's own session reads
 * (auth.ts, `/api/auth/session`) go through here too.
 */
export async function liveSessionAgent(
  claims: SessionClaims,
  now = new Date(),
): Promise<SessionAgent | null> {
  const agent = await findSessionAgent(await getDb(), { ...claims, now, limits: getConfig().sessions });
  return agent ? { ...agent, sessionId: claims.sessionId } : null;
}

/** The session an incoming Cookie header names, if the cookie is ours and intact (live or not: the row decides). */
export async function sessionClaimsOf(cookieHeader: string | null): Promise<SessionClaims | null> {
  const config = getConfig();
  return readSessionCookie(cookieHeader, {
    cookieName: sessionCookieName(config),
    secret: resolveAuthSecret(config),
  });
}

/** The signed-in agent of this request (pages, server actions, route handlers), checked once per request. */
export const verifySession = cache(async (): Promise<SessionAgent | null> => {
  const claims = await sessionClaimsOf((await headers()).get("cookie"));
  return claims ? liveSessionAgent(claims) : null;
});

/** For pages: the signed-in agent, or a redirect to the sign-in page that comes back here. */
export async function requireAgent(returnTo: string): Promise<SessionAgent> {
  const agent = await verifySession();
  if (!agent) redirect(`/sign-in?callbackUrl=${encodeURIComponent(safeReturnPath(returnTo))}` as Route);
  return agent;
}

/**
 * Records a sign-in (any method) and returns the id its cookie will carry. A session this browser's cookie still
 * names ends first: the new cookie replaces it here, and a copy of the old one must not outlive it elsewhere.
 */
export async function startSession(agentId: string, method: SessionMethod): Promise<string> {
  const requestHeaders = await headers();
  const userAgent = requestHeaders.get("user-agent");
  const previous = await sessionClaimsOf(requestHeaders.get("cookie"));
  if (previous) await endOneSession(previous.sessionId);
  return openSession(await getDb(), {
    agentId,
    method,
    userAgent,
    now: new Date(),
    limits: getConfig().sessions,
  });
}

/** Sign-out: this session ends on every instance at once. */
export async function endOneSession(sessionId: string): Promise<void> {
  await endSession(await getDb(), sessionId, new Date());
}

/** "Sair de todos os dispositivos" (and the CLI): every session of the agent ends. */
export async function endEverySession(agentId: string): Promise<number> {
  return endAgentSessions(await getDb(), agentId, new Date());
}
