import "server-only";
import { and, asc, eq, isNotNull, isNull, lt, notInArray, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database } from "../connection";
import { agents, integrations, sales, type Agent, type Integration, type Sale } from "../schema";
import { holdAuditTrail, recordAuditEvent, type AuditEventInput } from "./audit-events";
import { eraseEvidenceRecordingIds } from "./sale-evidence";
import { enqueueWebhookEvent } from "./webhooks";
import { formatProtocol } from "@/lib/sales/protocol";

export type ErasureReason = NonNullable<Sale["personalDataErasure"]>;

/**
 * A sale whose outcome is still open keeps its data: `pending` may be on its way to the provider, `unknown` waits
 * for a supervisor to ask the provider with it. Settling moves either to another status.
 */
const CLOSED = notInArray(sales.status, ["pending", "unknown"]);
const NOT_ERASED = isNull(sales.personalDataErasedAt);

/**
 * Erasure in place. The stored request is rebuilt from what may stay (an allowlist: plan, partner source, the
 * partner's customer id), with the customer's name, e-mail and phone empty, no birth date, and the CPF cut to the
 * six digits its mask shows ("***.982.247-**" is made from "***982247**"). The protocol, status, agent, times and
 * the provider's answer are other columns and stay. A customer's request keeps the CPF's keyed digest set when it
 * was asked (`eraseCustomer`), so their later requests still find the sale; retention keeps none.
 */
function erasure(reason: ErasureReason) {
  const request = (key: string) => sql`${sales.request} -> ${sql.raw(`'${key}'`)}`;
  return {
    request: sql`jsonb_strip_nulls(jsonb_build_object(
      'planId', ${request("planId")}, 'partnerSource', ${request("partnerSource")},
      'externalId', ${request("externalId")})) || jsonb_build_object(
      'customerName', '', 'customerEmail', '', 'customerPhone', '',
      'customerDocument', '***' || substr(${sales.request} ->> 'customerDocument', 4, 6) || '**')`,
    customerDocumentDigest: reason === "request" ? sql`${sales.customerDocumentDigest}` : null,
    personalDataErasedAt: sql`now()`,
    personalDataErasure: reason,
    // As every change of a sale (SALE_CHANGED_NOW in ./sales.ts): the changes feed orders by it.
    updatedAt: sql`clock_timestamp()`,
  };
}

/**
 * Erases up to `limit` closed sales matching `where`, oldest first, and returns their protocols. Rows another
 * erasure took meanwhile are skipped (`for update skip locked`), so each row is erased once.
 */
async function eraseWhere(
  db: Database,
  where: SQL | undefined,
  { reason, limit }: { reason: ErasureReason; limit: number },
): Promise<string[]> {
  const chosen = db
    .select({ submissionId: sales.submissionId })
    .from(sales)
    .where(and(NOT_ERASED, CLOSED, where))
    .orderBy(asc(sales.createdAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  // The chosen rows as an array, which the database reads once (an InitPlan). As `in (subquery)` the planner may
  // join it in a nested loop, rescanning it for every row: each rescan skipped the rows just locked and took the
  // next ones, and a batch of 2 erased all 5 sales a test had.
  const erased = await db
    .update(sales)
    .set(erasure(reason))
    .where(and(sql`${sales.submissionId} = any(array(${chosen}))`, NOT_ERASED, CLOSED))
    .returning({
      protocol: sales.protocol,
      submissionId: sales.submissionId,
      externalId: sql<string | null>`${sales.request} ->> 'externalId'`,
    });
  if (erased.length > 0) {
    // The evidence of the sale stays (lib/db/schema.ts, saleEvidence); the recording it points to is the
    // customer's voice: its id goes, its digest stays.
    await eraseEvidenceRecordingIds(
      db,
      erased.map((row) => row.submissionId),
    );
  }
  if (reason === "request" && erased.length > 0) {
    // The partner's systems hear of a customer's erasure, in its transaction, to erase there too: which sales,
    // never who (lib/webhooks). Retention's own erasures are this app's policy, not the customer's request.
    await enqueueWebhookEvent(db, {
      type: "customer.erased",
      orderKey: crypto.randomUUID(),
      submissionId: null,
      snapshot: {
        sales: erased.map((row) => ({
          submissionId: row.submissionId,
          protocol: formatProtocol(row.protocol),
          externalId: row.externalId,
        })),
      },
    });
  }
  return erased.map((row) => row.protocol);
}

/** A batch of sales created before `createdBefore` whose data retention erases now. */
export function eraseExpiredBatch(
  db: Database,
  { createdBefore, limit }: { createdBefore: Date; limit: number },
): Promise<string[]> {
  return eraseWhere(db, lt(sales.createdAt, createdBefore), { reason: "retention", limit });
}

/** A batch of sales whose customer asked for erasure while they were open, and that are closed now. */
export function eraseRequestedBatch(db: Database, { limit }: { limit: number }): Promise<string[]> {
  return eraseWhere(db, isNotNull(sales.erasureRequestedAt), { reason: "request", limit });
}

/** The sale `submissionId`, if its customer asked for erasure and it is closed: a supervisor just settled it. */
export async function eraseIfRequested(db: Database, submissionId: string): Promise<boolean> {
  const erased = await eraseWhere(
    db,
    and(eq(sales.submissionId, submissionId), isNotNull(sales.erasureRequestedAt)),
    { reason: "request", limit: 1 },
  );
  return erased.length > 0;
}

/**
 * The erasure is committed and on the audit trail, but the ledger's planner statistics could not be rebuilt: they
 * may still hold erased values. `purge`, or the same `erase` again, rebuilds them.
 */
export class StatisticsNotRebuiltError extends Error {
  override readonly name = "StatisticsNotRebuiltError";
}

/**
 * Planner statistics (pg_statistic, read as pg_stats) keep sampled values of the ledger's columns and of its
 * expression indexes, whole requests among them, until the next ANALYZE, which autovacuum runs when it sees fit
 * and PGlite's upkeep when enough changed: after an erasure they are rebuilt now. ANALYZE samples live rows only,
 * so an erased value leaves them; one ANALYZE of the table covers its indexes' expressions too. Migration 0017's
 * function runs it as the table's owner (the app's role owns nothing). ANALYZE takes a lock it conflicts with
 * itself, so one that read the rows before the erasure committed (autovacuum's) ends before this one begins, and
 * never writes its sample over this one's. It reads a sample of 30,000 rows whatever the ledger's size, a second
 * or two during which PGlite serves nothing else: once an erasure request or a retention run, never once a sale.
 */
export async function rebuildSalesStatistics(db: Database): Promise<void> {
  try {
    await db.execute(sql`select analyze_sales()`);
  } catch (error) {
    throw new StatisticsNotRebuiltError(
      "The erasure is done and on the audit trail, but the planner statistics were not rebuilt and may still " +
        "hold the erased data: `npm run customers -- purge` (or the same erase again) rebuilds them.",
      { cause: error },
    );
  }
}

/** One customer's sales, by their CPF's digits: those still holding it, and those erased at their request. */
function ofCustomer(cpf: string, digest: string): SQL {
  return or(sql`${sales.request} ->> 'customerDocument' = ${cpf}`, eq(sales.customerDocumentDigest, digest))!;
}

/**
 * A customer's erasure request, with its audit event in the same transaction. Every sale of theirs is marked with
 * the request (its time and the CPF's keyed digest, `digest`); the closed ones are erased now, the others when a
 * supervisor settles them or at retention's next run. Then the planner statistics are rebuilt, every time: asked
 * again after a failed rebuild, the request rebuilds them though it has nothing left to erase. Returns the
 * protocols of each.
 */
export async function eraseCustomer(
  db: Database,
  { cpf, digest, audit }: { cpf: string; digest: string; audit: Omit<AuditEventInput, "action" | "details"> },
): Promise<{ erased: string[]; waiting: string[] }> {
  const result = await db.transaction(async (tx) => {
    await holdAuditTrail(tx);
    await tx
      .update(sales)
      .set({
        erasureRequestedAt: sql`coalesce(${sales.erasureRequestedAt}, now())`,
        customerDocumentDigest: digest,
      })
      .where(and(NOT_ERASED, ofCustomer(cpf, digest)));
    const erased = await eraseWhere(tx, ofCustomer(cpf, digest), { reason: "request", limit: 100_000 });
    const waiting = await tx
      .select({ protocol: sales.protocol })
      .from(sales)
      .where(and(NOT_ERASED, ofCustomer(cpf, digest)))
      .orderBy(asc(sales.createdAt));
    const result = { erased, waiting: waiting.map((row) => row.protocol) };
    await recordAuditEvent(tx, { ...audit, action: "customer.erased", details: result });
    return result;
  });
  await rebuildSalesStatistics(db);
  return result;
}

export interface CustomerSale {
  sale: Sale;
  /** Who sold it: the agent, the integration whose API key sent it, or both (on the agent's behalf). */
  agent: Pick<Agent, "id" | "name" | "email"> | null;
  integration: Pick<Integration, "id" | "name"> | null;
  settler: Pick<Agent, "id" | "name" | "email"> | null;
}

/** Everything held about one customer's sales, oldest first (an access request, LGPD art. 18 II). */
export async function customerSales(db: Database, { cpf, digest }: { cpf: string; digest: string }) {
  const settler = alias(agents, "settler");
  const rows = await db
    .select({
      sale: sales,
      agent: { id: agents.id, name: agents.name, email: agents.email },
      integration: { id: integrations.id, name: integrations.name },
      settler: { id: settler.id, name: settler.name, email: settler.email },
    })
    .from(sales)
    .leftJoin(agents, eq(agents.id, sales.agentId))
    .leftJoin(integrations, eq(integrations.id, sales.integrationId))
    .leftJoin(settler, eq(settler.id, sales.settledBy))
    .where(ofCustomer(cpf, digest))
    .orderBy(asc(sales.createdAt), asc(sales.submissionId));
  return rows satisfies CustomerSale[];
}
