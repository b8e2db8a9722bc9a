import "server-only";
import type { Database } from "@/lib/db/connection";
import { insertMissingAgents } from "@/lib/db/queries/agents";
import { recordAuditEvent } from "@/lib/db/queries/audit-events";
import { securityEvent } from "@/lib/security-log";
import { DEMO_ACCOUNTS, DEMO_PASSWORD } from "./demo-account-list";
import { SYSTEM_DOOR } from "./doors";
import { hashPassword } from "./password";

/** Sandbox mode only: creates the demo accounts when missing, leaving any that an operator changed alone. */
export async function seedDemoAccounts(db: Database): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const created = await insertMissingAgents(
    db,
    DEMO_ACCOUNTS.map((account) => ({ ...account, passwordHash })),
  );
  for (const agent of created) {
    await recordAuditEvent(db, {
      actor: "system",
      door: SYSTEM_DOOR,
      action: "agent.created",
      details: { agentId: agent.id, email: agent.email, role: agent.role, password: true, demo: true },
    });
    await securityEvent("account.created", {
      outcome: "success",
      door: SYSTEM_DOOR,
      agentId: agent.id,
      address: null,
      reason: "demo",
      details: { role: agent.role },
    });
  }
}
