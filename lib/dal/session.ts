import "server-only";
import type { Route } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { resolveAuthSecret } from "@/lib/auth/secret";
import { readSessionCookie, sessionCookieName } from "@/lib/auth/session-token";
import { getDb } from "@/lib/db";
import { findAgentById } from "@/lib/db/queries/agents";
import type { AgentRole } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { safeReturnPath } from "@/lib/safe-return-path";

export interface SessionAgent {
  id: string;
  name: string;
  email: string;
  role: AgentRole;
}

/**
 * The one real session check, once per request: a valid session cookie is not enough, the agent must still
 * exist, be enabled, and not have had its sessions ended (disable, password reset) since signing in.
 */
export const verifySession = cache(async (): Promise<SessionAgent | null> => {
  const config = getConfig();
  const requestHeaders = await headers();
  const cookieName = sessionCookieName({
    embedded: config.embed.allowedOrigins.length > 0,
    authUrl: process.env.AUTH_URL ?? process.env.NEXTAUTH_URL,
    forwardedProto: requestHeaders.get("x-forwarded-proto"),
  });
  if (!cookieName) return null;
  const session = await readSessionCookie(requestHeaders.get("cookie"), {
    cookieName,
    secret: resolveAuthSecret(config),
  });
  if (!session) return null;
  const agent = await findAgentById(await getDb(), session.agentId);
  if (!agent || agent.disabledAt || session.authTime < agent.sessionsValidFrom.getTime()) return null;
  return { id: agent.id, name: agent.name, email: agent.email, role: agent.role };
});

/** For pages: the signed-in agent, or a redirect to the sign-in page that comes back here. */
export async function requireAgent(returnTo: string): Promise<SessionAgent> {
  const agent = await verifySession();
  if (!agent) redirect(`/sign-in?callbackUrl=${encodeURIComponent(safeReturnPath(returnTo))}` as Route);
  return agent;
}
