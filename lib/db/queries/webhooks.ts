import "server-only";
import { and, asc, desc, eq, gte, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Database } from "../connection";
import { rowsOf } from "../rows";
import {
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
  webhookEvents,
  type WebhookEndpoint,
  type WebhookEventType,
} from "../schema";
import { recordAuditEvent, type AuditActor } from "./audit-events";

/**
 * The webhooks' endpoints, outbox and deliveries (lib/webhooks). Events are written by migration 0020's trigger on
 * sales and by `enqueueWebhookEvent` (an erasure's transaction); dispatchers claim due deliveries here.
 */

export async function addWebhookEndpoint(
  db: Database,
  input: {
    url: string;
    events: readonly WebhookEventType[];
    includeCustomer: boolean;
    /** Seals the new endpoint's secret with its id as context (lib/webhooks/secrets.ts). */
    sealSecret: (endpointId: string) => string;
    actor: AuditActor;
  },
): Promise<WebhookEndpoint> {
  return db.transaction(async (tx) => {
    const id = crypto.randomUUID();
    const [endpoint] = await tx
      .insert(webhookEndpoints)
      .values({
        id,
        url: input.url,
        events: [...input.events],
        includeCustomer: input.includeCustomer,
        secretSealed: input.sealSecret(id),
      })
      .returning();
    await recordAuditEvent(tx, {
      ...input.actor,
      action: "webhook.added",
      details: {
        endpointId: id,
        url: input.url,
        events: input.events,
        includeCustomer: input.includeCustomer,
      },
    });
    return endpoint!;
  });
}

export interface EndpointSummary extends WebhookEndpoint {
  pending: number;
  dead: number;
  oldestPendingAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
}

export async function listWebhookEndpoints(db: Database): Promise<EndpointSummary[]> {
  const endpoints = await db.select().from(webhookEndpoints).orderBy(asc(webhookEndpoints.createdAt));
  const queues = await db
    .select({
      endpointId: webhookDeliveries.endpointId,
      pending: sql<number>`count(*) filter (where ${webhookDeliveries.state} = 'pending')`.mapWith(Number),
      dead: sql<number>`count(*) filter (where ${webhookDeliveries.state} = 'dead')`.mapWith(Number),
      oldestPendingAt:
        sql<Date | null>`min(${webhookEvents.createdAt}) filter (where ${webhookDeliveries.state} = 'pending')`.mapWith(
          (value) => (value === null ? null : new Date(value)),
        ),
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(inArray(webhookDeliveries.state, ["pending", "dead"]))
    .groupBy(webhookDeliveries.endpointId);
  const summaries: EndpointSummary[] = [];
  for (const endpoint of endpoints) {
    const queue = queues.find((row) => row.endpointId === endpoint.id);
    const [last] = await db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.endpointId, endpoint.id))
      .orderBy(desc(webhookAttempts.at))
      .limit(1);
    summaries.push({
      ...endpoint,
      pending: queue?.pending ?? 0,
      dead: queue?.dead ?? 0,
      oldestPendingAt: queue?.oldestPendingAt ?? null,
      lastAttemptAt: last?.at ?? null,
      lastStatusCode: last?.statusCode ?? null,
      lastError: last?.error ?? null,
    });
  }
  return summaries;
}

/** A change an operator makes to an endpoint, audited in the same transaction. Undefined if there is none. */
async function changeEndpoint(
  db: Database,
  endpointId: string,
  change: Partial<WebhookEndpoint>,
  audit: {
    action: "webhook.disabled" | "webhook.enabled" | "webhook.secret_rotated";
    actor: AuditActor;
    details?: Record<string, unknown>;
  },
): Promise<WebhookEndpoint | undefined> {
  return db.transaction(async (tx) => {
    const [endpoint] = await tx
      .update(webhookEndpoints)
      .set(change)
      .where(eq(webhookEndpoints.id, endpointId))
      .returning();
    if (endpoint) {
      await recordAuditEvent(tx, {
        ...audit.actor,
        action: audit.action,
        details: { endpointId, url: endpoint.url, ...audit.details },
      });
    }
    return endpoint;
  });
}

/** When the endpoint's pending deliveries fall due: now (enabled), or at the end of time (disabled, parked). */
const setPendingDue = (db: Database, endpointId: string, when: SQL) =>
  db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: when })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.state, "pending")));

/**
 * Disabled: sent nothing, and kept no new event; what waited for it is parked (due at the end of time) until it is
 * enabled, so that no claim reads past it meanwhile.
 */
export async function disableWebhookEndpoint(db: Database, endpointId: string, actor: AuditActor) {
  const endpoint = await changeEndpoint(
    db,
    endpointId,
    { disabledAt: new Date() },
    { action: "webhook.disabled", actor },
  );
  if (endpoint) await setPendingDue(db, endpointId, sql`'9999-12-31T00:00:00Z'::timestamptz`);
  return endpoint;
}

/** Enabled again, and no longer failing: its pending deliveries go at once. */
export async function enableWebhookEndpoint(db: Database, endpointId: string, actor: AuditActor) {
  const endpoint = await changeEndpoint(
    db,
    endpointId,
    { disabledAt: null, failingSince: null },
    { action: "webhook.enabled", actor },
  );
  if (endpoint) await setPendingDue(db, endpointId, sql`now()`);
  return endpoint;
}

/** A new secret; the current one still signs (beside it) until `previousUntil`. */
export const rotateWebhookSecret = (
  db: Database,
  endpoint: Pick<WebhookEndpoint, "id" | "secretSealed">,
  input: { secretSealed: string; previousSecretSealed: string; previousUntil: Date; actor: AuditActor },
) =>
  changeEndpoint(
    db,
    endpoint.id,
    {
      secretSealed: input.secretSealed,
      previousSecretSealed: input.previousSecretSealed,
      previousSecretUntil: input.previousUntil,
    },
    {
      action: "webhook.secret_rotated",
      actor: input.actor,
      details: { previousUntil: input.previousUntil.toISOString() },
    },
  );

/**
 * Gone with its deliveries and attempts; the events stay for the other endpoints. Deliveries have no foreign key
 * (migration 0022), so they are deleted here. One that a sale still in flight writes for the endpoint as this
 * commits is left behind and never claimed (claimDueDeliveries takes an existing, enabled endpoint's only): no lock
 * here holds up the sales meanwhile.
 */
export async function removeWebhookEndpoint(db: Database, endpointId: string, actor: AuditActor) {
  return db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(webhookEndpoints)
      .where(eq(webhookEndpoints.id, endpointId))
      .returning();
    if (removed) {
      await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId));
      await recordAuditEvent(tx, {
        ...actor,
        action: "webhook.removed",
        details: { endpointId, url: removed.url },
      });
    }
    return removed;
  });
}

/** An event an erasure (or anything but the sales trigger) causes, in the caller's transaction. */
export async function enqueueWebhookEvent(
  tx: Database,
  event: {
    type: WebhookEventType;
    orderKey: string;
    submissionId: string | null;
    snapshot: Record<string, unknown>;
  },
): Promise<string | null> {
  const rows = rowsOf<{ id: string | null }>(
    await tx.execute(
      sql`select enqueue_webhook_event(${event.type}, ${event.submissionId}::uuid, ${event.orderKey}::uuid, ${JSON.stringify(event.snapshot)}::jsonb, null) as id`,
    ),
  );
  return rows[0]?.id ?? null;
}

export interface ClaimedDelivery {
  eventId: string;
  endpointId: string;
  attempts: number;
  type: WebhookEventType;
  submissionId: string | null;
  snapshot: Record<string, unknown>;
  traceparent: string | null;
  eventCreatedAt: Date;
}

/**
 * Due deliveries for `holder`, each leased for `leaseMs`: pending, due, not leased by a live holder, and the first
 * pending one of its endpoint and sale (a sale's events reach an endpoint in order). `for update skip locked`: two
 * dispatchers never take the same delivery; a dispatcher that dies leaves its lease to expire. In event order.
 *
 * The plan is pinned: webhook_deliveries_due_idx read in order, and only until the batch is full, each candidate's
 * endpoint and sale checked by a probe (scalar subqueries, which the planner cannot turn into joins). Left to itself
 * on a queue that grew faster than its statistics (a backlog after an outage, before ANALYZE), the planner reads
 * every pending row, checks each, and sorts them: a claim's cost grows with the queue. Sorts and bitmap scans are
 * off for this one transaction.
 */
export async function claimDueDeliveries(
  db: Database,
  {
    holder,
    limit,
    leaseMs,
    excludeEndpoints = [],
  }: {
    holder: string;
    limit: number;
    leaseMs: number;
    /** Endpoints this holder has as many attempts in flight for as it allows: none of theirs now. */
    excludeEndpoints?: readonly string[];
  },
): Promise<ClaimedDelivery[]> {
  const rows = await db.transaction(async (tx) => {
    await tx.execute(
      sql`select set_config('enable_sort', 'off', true), set_config('enable_bitmapscan', 'off', true)`,
    );
    return rowsOf<{
      event_id: string;
      endpoint_id: string;
      attempts: number;
      type: WebhookEventType;
      submission_id: string | null;
      snapshot: Record<string, unknown>;
      traceparent: string | null;
      created_at: string | Date;
      seq: string | number;
    }>(
      await tx.execute(sql`
      with due as (
        select d.event_id, d.endpoint_id from ${webhookDeliveries} d
        where d.state = 'pending' and d.next_attempt_at <= now()
          and (d.lease_until is null or d.lease_until < now())
          and (select e.disabled_at is null from ${webhookEndpoints} e where e.id = d.endpoint_id)
          and d.endpoint_id not in (
            select value::uuid from jsonb_array_elements_text(${JSON.stringify(excludeEndpoints)}::jsonb)
          )
          and d.seq = (
            select min(earlier.seq) from ${webhookDeliveries} earlier
            where earlier.endpoint_id = d.endpoint_id and earlier.order_key = d.order_key
              and earlier.state = 'pending'
          )
        order by d.next_attempt_at
        limit ${limit}
        for update of d skip locked
      ), leased as (
        update ${webhookDeliveries} d
        set lease_until = now() + ${leaseMs} * interval '1 millisecond', leased_by = ${holder}
        from due where d.event_id = due.event_id and d.endpoint_id = due.endpoint_id
        returning d.event_id, d.endpoint_id, d.attempts
      )
      select leased.event_id, leased.endpoint_id, leased.attempts, ev.type, ev.submission_id, ev.snapshot,
        ev.traceparent, ev.created_at, ev.seq
      from leased join ${webhookEvents} ev on ev.id = leased.event_id`),
    );
  });
  return rows
    .sort((a, b) => Number(a.seq) - Number(b.seq))
    .map((row) => ({
      eventId: row.event_id,
      endpointId: row.endpoint_id,
      attempts: row.attempts,
      type: row.type,
      submissionId: row.submission_id,
      snapshot: row.snapshot,
      traceparent: row.traceparent,
      eventCreatedAt: new Date(row.created_at),
    }));
}

/**
 * Gives claimed deliveries back unattempted: due again at once (a holder over its per-endpoint limit), or after
 * `delayMs` (a delivery this holder cannot sign). Only this holder's; no attempt is recorded.
 */
export async function releaseDeliveries(
  db: Database,
  holder: string,
  deliveries: readonly { eventId: string; endpointId: string }[],
  delayMs = 0,
): Promise<void> {
  if (deliveries.length === 0) return;
  const keys = JSON.stringify(
    deliveries.map(({ eventId, endpointId }) => ({ event_id: eventId, endpoint_id: endpointId })),
  );
  await db.execute(sql`
    update ${webhookDeliveries} d
    set lease_until = null,
      next_attempt_at = greatest(d.next_attempt_at, now() + ${delayMs} * interval '1 millisecond')
    from jsonb_to_recordset(${keys}::jsonb) as k(event_id uuid, endpoint_id uuid)
    where d.event_id = k.event_id and d.endpoint_id = k.endpoint_id and d.leased_by = ${holder}
      and d.state = 'pending'`);
}

export interface AttemptResult {
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/**
 * Delivered: each recorded with its attempt, their endpoints no longer failing. Only by the lease's holder (the
 * attempt is recorded whoever holds it). One statement for them all, atomic by itself: the dispatcher records the
 * deliveries that ended together in one round trip.
 */
export async function markDelivered(
  db: Database,
  holder: string,
  delivered: readonly {
    eventId: string;
    endpointId: string;
    durationMs: number;
    statusCode: number | null;
  }[],
): Promise<void> {
  if (delivered.length === 0) return;
  const rows = JSON.stringify(
    delivered.map(({ eventId, endpointId, durationMs, statusCode }) => ({
      event_id: eventId,
      endpoint_id: endpointId,
      duration_ms: durationMs,
      status_code: statusCode,
    })),
  );
  await db.execute(sql`
    with input as (
      select * from jsonb_to_recordset(${rows}::jsonb)
        as t(event_id uuid, endpoint_id uuid, duration_ms integer, status_code integer)
    ), done as (
      update ${webhookDeliveries} d
      set state = 'delivered', attempts = d.attempts + 1, delivered_at = now(), last_status = input.status_code,
        last_error = null, lease_until = null
      from input
      where d.event_id = input.event_id and d.endpoint_id = input.endpoint_id and d.leased_by = ${holder}
      returning 1
    ), healed as (
      update ${webhookEndpoints} set failing_since = null
      where id in (select endpoint_id from input) and failing_since is not null
      returning 1
    )
    insert into ${webhookAttempts} (event_id, endpoint_id, duration_ms, status_code, error)
    select event_id, endpoint_id, duration_ms, status_code, null from input
    -- An endpoint removed while its attempt was in flight took its record with it; the others' stand.
    where endpoint_id in (select id from ${webhookEndpoints})`);
}

/**
 * Not delivered: the attempt recorded, the next one at `nextAttemptAt`, or (null) given up: dead, and its endpoint
 * failing from now. Returns whether the endpoint has just started failing.
 */
export async function markFailedAttempt(
  db: Database,
  delivery: { eventId: string; endpointId: string; holder: string },
  attempt: AttemptResult,
  nextAttemptAt: Date | null,
): Promise<{ endpointNowFailing: boolean }> {
  return db.transaction(async (tx) => {
    // Not for an endpoint removed while its attempt was in flight: its records went with it.
    await tx.execute(sql`
      insert into ${webhookAttempts} (event_id, endpoint_id, duration_ms, status_code, error)
      select ${delivery.eventId}, id, ${attempt.durationMs}, ${attempt.statusCode}, ${attempt.error}
      from ${webhookEndpoints} where id = ${delivery.endpointId}`);
    const updated = await tx
      .update(webhookDeliveries)
      .set({
        state: nextAttemptAt ? "pending" : "dead",
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        nextAttemptAt: nextAttemptAt ?? sql`${webhookDeliveries.nextAttemptAt}`,
        lastStatus: attempt.statusCode,
        lastError: attempt.error,
        leaseUntil: null,
      })
      .where(
        and(
          eq(webhookDeliveries.eventId, delivery.eventId),
          eq(webhookDeliveries.endpointId, delivery.endpointId),
          eq(webhookDeliveries.leasedBy, delivery.holder),
        ),
      )
      .returning({ eventId: webhookDeliveries.eventId });
    // Still retrying, or no longer this holder's (its lease ran out and another took it): not failing by this.
    if (nextAttemptAt || updated.length === 0) return { endpointNowFailing: false };
    const [failing] = await tx
      .update(webhookEndpoints)
      .set({ failingSince: sql`now()` })
      .where(and(eq(webhookEndpoints.id, delivery.endpointId), isNull(webhookEndpoints.failingSince)))
      .returning({ id: webhookEndpoints.id });
    return { endpointNowFailing: failing !== undefined };
  });
}

/**
 * Sends again (a new delivery, or the existing one made due) one event, or every event since `since`, to one
 * endpoint or to every enabled endpoint that hears its type. Returns how many deliveries were made due.
 */
export async function replayWebhookEvents(
  db: Database,
  input: { eventId?: string; since?: Date; endpointId?: string; actor: AuditActor },
): Promise<number> {
  return db.transaction(async (tx) => {
    const events = await tx
      .select({
        id: webhookEvents.id,
        seq: webhookEvents.seq,
        type: webhookEvents.type,
        submissionId: webhookEvents.submissionId,
      })
      .from(webhookEvents)
      .where(
        input.eventId
          ? eq(webhookEvents.id, input.eventId)
          : input.since
            ? gte(webhookEvents.createdAt, input.since)
            : sql`false`,
      )
      .orderBy(asc(webhookEvents.seq));
    let due = 0;
    for (const event of events) {
      const targets = await tx
        .select({ id: webhookEndpoints.id })
        .from(webhookEndpoints)
        .where(
          and(
            isNull(webhookEndpoints.disabledAt),
            // Only to endpoints that hear this event, the one named included.
            sql`${event.type} = any(${webhookEndpoints.events})`,
            input.endpointId ? eq(webhookEndpoints.id, input.endpointId) : undefined,
          ),
        );
      for (const target of targets) {
        const made = await tx
          .insert(webhookDeliveries)
          .values({
            eventId: event.id,
            endpointId: target.id,
            orderKey: event.submissionId ?? event.id,
            seq: event.seq,
          })
          .onConflictDoUpdate({
            target: [webhookDeliveries.eventId, webhookDeliveries.endpointId],
            // Due now with a fresh retry schedule; one in flight (a live lease) is left to its attempt.
            set: {
              state: "pending",
              nextAttemptAt: sql`now()`,
              attempts: 0,
              lastError: null,
              leaseUntil: null,
            },
            setWhere: sql`${webhookDeliveries.leaseUntil} is null or ${webhookDeliveries.leaseUntil} < now()`,
          })
          .returning({ eventId: webhookDeliveries.eventId });
        due += made.length;
      }
    }
    await recordAuditEvent(tx, {
      ...input.actor,
      action: "webhook.replayed",
      details: {
        eventId: input.eventId ?? null,
        since: input.since?.toISOString() ?? null,
        endpointId: input.endpointId ?? null,
        deliveries: due,
      },
    });
    return due;
  });
}

export function findWebhookEndpoints(db: Database, ids: string[]): Promise<WebhookEndpoint[]> {
  return db.select().from(webhookEndpoints).where(inArray(webhookEndpoints.id, ids));
}

/** Pending deliveries and the age of the oldest undelivered event, for the metrics. */
export async function countWebhookQueue(db: Database): Promise<{ pending: number; oldestSeconds: number }> {
  const [row] = await db
    .select({
      pending: sql<number>`count(*)`.mapWith(Number),
      oldest: sql<number>`coalesce(extract(epoch from now() - min(${webhookEvents.createdAt})), 0)`.mapWith(
        Number,
      ),
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    // A disabled endpoint's backlog is the operator's choice, not a delivery falling behind.
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(sql`${webhookDeliveries.state} = 'pending'`, isNull(webhookEndpoints.disabledAt)));
  return { pending: row?.pending ?? 0, oldestSeconds: row?.oldest ?? 0 };
}
