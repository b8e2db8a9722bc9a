import "server-only";
import { asc, eq, gte } from "drizzle-orm";
import type { Database } from "../connection";
import { agents, auditEvents, type AuditAction } from "../schema";

export interface AuditEventInput {
  action: AuditAction;
  /** "agent" (with `agentId`), "cli:<operating-system user>" or "retention". */
  actor: string;
  agentId?: string | null;
  protocol?: string | null;
  reason?: string | null;
  /** Counts, filter names, commands: never a customer's data. */
  details?: Record<string, unknown>;
}

export async function recordAuditEvent(db: Database, event: AuditEventInput): Promise<void> {
  await db.insert(auditEvents).values({
    action: event.action,
    actor: event.actor,
    agentId: event.agentId ?? null,
    protocol: event.protocol ?? null,
    reason: event.reason ?? null,
    details: event.details ?? {},
  });
}

/** The trail from `since` on, oldest first, with the acting agent's e-mail where an agent acted. */
export async function listAuditEvents(db: Database, { since, limit }: { since?: Date; limit: number }) {
  return db
    .select({
      id: auditEvents.id,
      at: auditEvents.at,
      action: auditEvents.action,
      actor: auditEvents.actor,
      agentEmail: agents.email,
      protocol: auditEvents.protocol,
      reason: auditEvents.reason,
      details: auditEvents.details,
    })
    .from(auditEvents)
    .leftJoin(agents, eq(agents.id, auditEvents.agentId))
    .where(since ? gte(auditEvents.at, since) : undefined)
    .orderBy(asc(auditEvents.at), asc(auditEvents.id))
    .limit(limit);
}
