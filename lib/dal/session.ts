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
async function sessionClaimsOf(cookieHeader: string | null): Promise<SessionClaims | null> {
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
  await endSessionNamedBy(requestHeaders.get("cookie"));
  return openSession(await getDb(), {
    agentId,
    method,
    userAgent,
    now: new Date(),
    limits: getConfig().sessions,
  });
}

/**
 * Sign-out (the server action, Auth.js's endpoint) and a sign-in over an old cookie: the session that Cookie header
 * names ends on every instance at once. Called before the cookie is cleared or replaced, so a database that cannot
 * take it fails the request instead of leaving a copy of the cookie alive. Tells how the ended session was signed
 * in to (null when there was none, or it had ended): after an OIDC one, sign-out offers the IdP's too.
 */
export async function endSessionNamedBy(cookieHeader: string | null): Promise<SessionMethod | null> {
  const claims = await sessionClaimsOf(cookieHeader);
  return claims ? endSession(await getDb(), claims.sessionId, new Date()) : null;
}

/** "Sair de todos os dispositivos" (and the CLI): every session of the agent ends. */
export async function endEverySession(agentId: string): Promise<number> {
  return endAgentSessions(await getDb(), agentId, new Date());
}
