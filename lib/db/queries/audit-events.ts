import "server-only";
import { asc, desc, eq, gte, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { agents, auditEvents, type AuditAction } from "../schema";

/** Who acts, as the trail names them. */
export interface AuditActor {
  /** "agent:<id>" (with `agentId`), "cli:<operating-system user>", "retention" or "system". */
  actor: string;
  agentId?: string | null;
  /** How they came in: `password`, `oidc:<issuer>`, `portal:<issuer>`, `cli`, `system`. */
  door: string | null;
}

export interface AuditEventInput extends AuditActor {
  action: AuditAction;
  protocol?: string | null;
  reason?: string | null;
  /** Counts, filter names, commands, what changed: never a customer's data. */
  details?: Record<string, unknown>;
}

/** An agent acting in the app, through the door their session came in by. */
export const agentActor = (agent: { id: string; door: string }): AuditActor => ({
  actor: `agent:${agent.id}`,
  agentId: agent.id,
  door: agent.door,
});

/**
 * Takes the audit trail's lock (migration 0013's trigger takes it at each insert) at the start of a transaction
 * that changes sales and then records the change: every sale row it stamps (`updated_at`) is then written after
 * any wait for the trail, and commits within moments of its stamp, as the changes feed needs
 * (lib/db/queries/api-sales.ts, FEED_HORIZON_MS). Taken at the insert instead, a queue behind a long erasure would
 * commit a settlement seconds after its stamp, behind a poller that had already moved past it.
 */
export async function holdAuditTrail(tx: Database): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(5788903452431364211)`);
}

/** The row joins the hash chain as the database writes it (migration 0013's trigger: its place, time and hash). */
export async function recordAuditEvent(db: Database, event: AuditEventInput): Promise<void> {
  await db.insert(auditEvents).values({
    action: event.action,
    actor: event.actor,
    agentId: event.agentId ?? null,
    door: event.door,
    protocol: event.protocol ?? null,
    reason: event.reason ?? null,
    details: event.details ?? {},
  });
}

/** The trail from `since` on, in the chain's order, with the acting agent's e-mail where an agent acted. */
export async function listAuditEvents(db: Database, { since, limit }: { since?: Date; limit: number }) {
  return db
    .select({
      seq: auditEvents.seq,
      at: auditEvents.at,
      action: auditEvents.action,
      actor: auditEvents.actor,
      agentId: auditEvents.agentId,
      door: auditEvents.door,
      agentEmail: agents.email,
      protocol: auditEvents.protocol,
      reason: auditEvents.reason,
      details: auditEvents.details,
    })
    .from(auditEvents)
    .leftJoin(agents, eq(agents.id, auditEvents.agentId))
    .where(since ? gte(auditEvents.at, since) : undefined)
    .orderBy(asc(auditEvents.seq))
    .limit(limit);
}

/** A row of the chain as lib/audit/chain.ts checks it: every hashed field, as text the database wrote. */
export interface ChainRow {
  id: number;
  seq: number;
  /** `at` in UTC with microseconds, as the trigger hashed it. */
  at: string;
  action: string;
  actor: string;
  door: string | null;
  agentId: string | null;
  protocol: string | null;
  reason: string | null;
  /** `details` as the database prints it (jsonb's own text form, which the hash covers). */
  details: string;
  prevHash: string;
  hash: string;
}

/** `limit` rows of the chain after `afterSeq`, in order (the verifier reads it a batch at a time). */
/** A trail row as its hash covers it (lib/audit/chain.ts). */
const chainColumns = {
  id: auditEvents.id,
  seq: auditEvents.seq,
  at: sql<string>`to_char(${auditEvents.at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
  action: sql<string>`${auditEvents.action}::text`,
  actor: auditEvents.actor,
  door: auditEvents.door,
  agentId: sql<string | null>`${auditEvents.agentId}::text`,
  protocol: auditEvents.protocol,
  reason: auditEvents.reason,
  details: sql<string>`${auditEvents.details}::text`,
  prevHash: auditEvents.prevHash,
  hash: auditEvents.hash,
};

export async function readChain(db: Database, afterSeq: number, limit: number): Promise<ChainRow[]> {
  return db
    .select(chainColumns)
    .from(auditEvents)
    .where(sql`${auditEvents.seq} > ${afterSeq}`)
    .orderBy(asc(auditEvents.seq))
    .limit(limit);
}

/** The newest row's place and hash: what the log records now and then, so a deleted tail shows. */
export async function chainHead(db: Database): Promise<{ seq: number; hash: string } | undefined> {
  const [head] = await db
    .select({ seq: auditEvents.seq, hash: auditEvents.hash })
    .from(auditEvents)
    .orderBy(desc(auditEvents.seq))
    .limit(1);
  return head;
}

/** The row at `seq`, if it is still there. */
export async function chainRowAt(
  db: Database,
  seq: number,
): Promise<{ seq: number; hash: string } | undefined> {
  const [row] = await db
    .select({ seq: auditEvents.seq, hash: auditEvents.hash })
    .from(auditEvents)
    .where(eq(auditEvents.seq, seq))
    .limit(1);
  return row;
}

/** The trail's rows about one sale (its protocol), in the chain's order. */
export async function readChainOfSale(db: Database, protocol: string): Promise<ChainRow[]> {
  return db
    .select(chainColumns)
    .from(auditEvents)
    .where(eq(auditEvents.protocol, protocol))
    .orderBy(asc(auditEvents.seq));
}
