import "server-only";
import type { Database } from "@/lib/db/connection";
import type { AgentChange } from "@/lib/db/queries/agents";
import { recordAuditEvent } from "@/lib/db/queries/audit-events";
import { factorSummary, removeFactor, replaceRecoveryCodes } from "@/lib/db/queries/second-factors";
import type { Agent, SecondFactor } from "@/lib/db/schema";
import { securityEvent } from "@/lib/security-log";
import { endedSessionEvent } from "@/lib/security-log/line";
import { issueRecoveryCodes } from "./factors";

type AgentRef = Pick<Agent, "id" | "email">;
const actor = (agent: AgentRef, door: string) => ({ actor: `agent:${agent.id}`, agentId: agent.id, door });

/**
 * A factor enrolled: in the trail and the security log. The account's first factor comes with ten recovery codes,
 * returned to be shown once; later ones keep the codes the agent has (none returned).
 */
export async function enrolled(
  db: Database,
  agent: AgentRef,
  factor: SecondFactor,
  door: string,
): Promise<string[]> {
  const summary = await factorSummary(db, agent.id);
  const recoveryCodes = summary.recoveryCodes === 0 ? await issueRecoveryCodes(db, agent.id) : [];
  await recordAuditEvent(db, {
    ...actor(agent, door),
    action: "agent.second_factor_added",
    details: {
      agentId: agent.id,
      factor: factor.kind,
      factorId: factor.id,
      recoveryCodes: recoveryCodes.length,
    },
  });
  await securityEvent("account.second_factor_added", {
    outcome: "success",
    door,
    agentId: agent.id,
    details: { factor: factor.kind },
  });
  if (recoveryCodes.length > 0) await recoveryCodesIssued(agent, door, recoveryCodes.length);
  return recoveryCodes;
}

async function recoveryCodesIssued(agent: AgentRef, door: string, count: number): Promise<void> {
  await securityEvent("account.recovery_codes_generated", {
    outcome: "success",
    door,
    agentId: agent.id,
    details: { count },
  });
}

/** New recovery codes asked for on the account page: the old ones stop working. */
export async function regenerateRecoveryCodes(
  db: Database,
  agent: AgentRef,
  door: string,
): Promise<string[]> {
  const codes = await issueRecoveryCodes(db, agent.id);
  await recordAuditEvent(db, {
    ...actor(agent, door),
    action: "agent.recovery_codes_generated",
    details: { agentId: agent.id, count: codes.length },
  });
  await recoveryCodesIssued(agent, door, codes.length);
  return codes;
}

/** A factor removed by its agent; with the last one go the recovery codes (nothing left for them to stand in for). */
export async function removeOwnFactor(
  db: Database,
  agent: AgentRef,
  factorId: string,
  door: string,
): Promise<SecondFactor | undefined> {
  const removed = await removeFactor(db, agent.id, factorId);
  if (!removed) return undefined;
  const left = await factorSummary(db, agent.id);
  if (left.totp + left.webauthn === 0) await replaceRecoveryCodes(db, agent.id, []);
  await recordAuditEvent(db, {
    ...actor(agent, door),
    action: "agent.second_factor_removed",
    details: { agentId: agent.id, factor: removed.kind, factorId: removed.id },
  });
  await securityEvent("account.second_factor_removed", {
    outcome: "success",
    door,
    agentId: agent.id,
    details: { factor: removed.kind },
  });
  return removed;
}

/** The agent's own new password (the trail has it already): the log, and each session it ended. */
export async function passwordChanged(change: AgentChange, via: "sign_in" | "account_page"): Promise<void> {
  await securityEvent("account.password_changed", {
    outcome: "success",
    door: "password",
    agentId: change.agent.id,
    details: { via, sessionsEnded: change.endedSessions.length },
  });
  for (const session of change.endedSessions) await securityEvent(...endedSessionEvent(session));
}
