import { passwordCredential } from "@/lib/auth/credential";
import { parseDoor } from "@/lib/auth/doors";
import type { Database } from "@/lib/db/connection";
import { recordIdentitySignIn } from "@/lib/db/queries/identities";
import { openSession, type SessionLimits } from "@/lib/db/queries/sessions";
import type { Agent, AgentRole } from "@/lib/db/schema";

export const TEST_SESSION_LIMITS: SessionLimits = { idleMs: 60 * 60_000, absoluteMs: 12 * 60 * 60_000 };

/**
 * A session as a sign-in through `door` opens it: a password session holds the agent's password and role now, an
 * identity's names the identity (`identityId`). Its id.
 */
export async function openTestSession(
  db: Database,
  agent: Pick<Agent, "id" | "passwordHash" | "role">,
  {
    door = "password",
    identityId = null,
    role = door === "password" ? agent.role : "agent",
    now = new Date(),
    limits = TEST_SESSION_LIMITS,
    userAgent = null,
  }: {
    door?: string;
    identityId?: string | null;
    role?: AgentRole;
    now?: Date;
    limits?: SessionLimits;
    userAgent?: string | null;
  } = {},
): Promise<string> {
  const method = parseDoor(door)!.kind;
  // As a sign-in through an identity does first: the identity records the role its door gives now.
  if (identityId) await recordIdentitySignIn(db, { identityId, role, now });
  const credential =
    method === "password" && agent.passwordHash ? passwordCredential(agent.passwordHash) : null;
  const { id } = await openSession(db, {
    agentId: agent.id,
    method,
    door,
    identityId,
    role,
    credential,
    userAgent,
    now,
    limits,
  });
  return id;
}
