import "server-only";
import type { BlockList } from "node:net";
import type { Database } from "@/lib/db/connection";
import { findApiSales, type ApiSaleRow } from "@/lib/db/queries/api-sales";
import {
  claimDueDeliveries,
  countWebhookQueue,
  releaseDeliveries,
  findWebhookEndpoints,
  markDelivered,
  markFailedAttempt,
  type ClaimedDelivery,
} from "@/lib/db/queries/webhooks";
import type { WebhookEndpoint } from "@/lib/db/schema";
import { log } from "@/lib/log";
import { countWebhookDelivery, observeWebhookQueue } from "@/lib/metrics";
import { inSpanUnder, noteOnSpan, SUBMISSION_ID } from "@/lib/tracing";
import { allowedNetworks } from "./address-guard";
import { erasurePayload, saleEventPayload, type WebhookPayload } from "./payload";
import { signingSecrets } from "./secrets";
import { sendWebhook, SOCKETS_PER_RECEIVER, type SendLimits, type SendResult } from "./send";

/**
 * After each failed attempt, the wait before the next (±20% jitter): quick at first, for a receiver that blinked,
 * then hours apart, for one down for the night. Thirteen retries over 2 days 22 hours; then the delivery is dead
 * and its endpoint failing (docs/api-and-webhooks.md: "Webhooks").
 */
export const RETRY_SCHEDULE_MS = [
  5_000,
  30_000,
  120_000,
  600_000,
  1_800_000,
  3_600_000,
  3 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  12 * 3_600_000,
  12 * 3_600_000,
  12 * 3_600_000,
  12 * 3_600_000,
];

/** When to try again after `attempts` failed attempts, or null: no more. */
export function nextAttemptAt(attempts: number, now: Date, random: () => number = Math.random): Date | null {
  const wait = RETRY_SCHEDULE_MS[attempts - 1];
  if (wait === undefined) return null;
  return new Date(now.getTime() + Math.round(wait * (0.8 + 0.4 * random())));
}

export interface DispatcherDeps {
  db: Database;
  /** This instance, as the leases name it. */
  holder: string;
  authSecret: string;
  limits: Omit<SendLimits, "allowed"> & { allowedNetworks: readonly string[] };
  send?: (message: Parameters<typeof sendWebhook>[0], limits: SendLimits) => Promise<SendResult>;
}

const BATCH = 100;
/** How long a delivery this instance cannot sign waits before any instance takes it again. */
const UNREADABLE_RETRY_MS = 60_000;

const lastSaid = new Map<string, number>();
/** Whether a line about `key` is due: once per key every ten minutes. */
function onceInAWhile(key: string, now = Date.now()): boolean {
  const last = lastSaid.get(key);
  if (last !== undefined && now - last < 600_000) return false;
  lastSaid.set(key, now);
  return true;
}

/**
 * How long a claimed delivery is this instance's: the attempt's whole timeout twice over, and ten seconds for the
 * database around it. An instance killed mid-attempt holds its deliveries this long; then another (or itself,
 * restarted) sends them again.
 */
const leaseMs = (deps: DispatcherDeps) => deps.limits.timeoutMs * 2 + 10_000;

/**
 * Claims up to `limit` due deliveries (lib/db/queries/webhooks.ts: a lease each, a sale's events in order), with
 * their endpoints and their sales, each read once for the batch.
 */
async function claim(
  deps: DispatcherDeps,
  limit: number,
  excludeEndpoints: readonly string[] = [],
): Promise<Claimed[]> {
  const claimed = await claimDueDeliveries(deps.db, {
    holder: deps.holder,
    limit,
    leaseMs: leaseMs(deps),
    excludeEndpoints,
  });
  if (claimed.length === 0) return [];
  const [endpoints, sales] = await Promise.all([
    findWebhookEndpoints(deps.db, [...new Set(claimed.map((delivery) => delivery.endpointId))]),
    findApiSales(deps.db, [
      ...new Set(claimed.flatMap((delivery) => (delivery.submissionId ? [delivery.submissionId] : []))),
    ]),
  ]);
  const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
  return claimed.map((delivery) => ({
    delivery,
    endpoint: byId.get(delivery.endpointId),
    sale: delivery.submissionId ? sales.get(delivery.submissionId) : undefined,
  }));
}

interface Claimed {
  delivery: ClaimedDelivery;
  /** Undefined: removed meanwhile. */
  endpoint: WebhookEndpoint | undefined;
  sale: ApiSaleRow | undefined;
}

/** One batch, claimed and sent, every attempt awaited. Returns how many were claimed. */
export async function dispatchOnce(deps: DispatcherDeps, allowed: BlockList): Promise<number> {
  const batch = await claim(deps, BATCH);
  const recordDelivered = deliveredRecorder(deps.db, deps.holder);
  await Promise.all(batch.map((claimed) => deliver(deps, allowed, claimed, recordDelivered)));
  return batch.length;
}

type Delivered = Parameters<typeof markDelivered>[2][number];

/** How long a delivery's record waits for others that end about then: one statement records them all. */
const RECORD_AFTER_MS = 5;

/**
 * Records deliveries that end within RECORD_AFTER_MS of each other together, one statement for them all; each
 * caller's promise settles with it.
 */
function deliveredRecorder(db: Database, holder: string): (delivered: Delivered) => Promise<void> {
  let waiting: { delivered: Delivered; resolve: () => void; reject: (error: unknown) => void }[] = [];
  const flush = async () => {
    const batch = waiting;
    waiting = [];
    try {
      await markDelivered(
        db,
        holder,
        batch.map((entry) => entry.delivered),
      );
      for (const entry of batch) entry.resolve();
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  };
  return (delivered) =>
    new Promise<void>((resolve, reject) => {
      if (waiting.length === 0) setTimeout(() => void flush(), RECORD_AFTER_MS);
      waiting.push({ delivered, resolve, reject });
    });
}

async function deliver(
  deps: DispatcherDeps,
  allowed: BlockList,
  claimed: Claimed,
  recordDelivered: (delivered: Delivered) => Promise<void>,
): Promise<void> {
  const { delivery, endpoint } = claimed;
  if (!endpoint) return; // removed meanwhile: its deliveries went with it
  await inSpanUnder(
    delivery.traceparent,
    "webhook.deliver",
    {
      "partner_sales.webhook.event": delivery.type,
      "partner_sales.webhook.endpoint": endpoint.id,
      "partner_sales.webhook.attempt": delivery.attempts + 1,
      ...(delivery.submissionId ? { [SUBMISSION_ID]: delivery.submissionId } : {}),
    },
    async () => {
      const now = new Date();
      const secrets = signingSecrets(endpoint, deps.authSecret, now);
      if (secrets.length === 0) {
        // This instance's AUTH_SECRET is not the one that sealed the secret: its configuration, not the receiver,
        // is wrong. The delivery goes back unattempted (another instance, or this one fixed, sends it), its retry
        // schedule untouched.
        noteOnSpan({ "partner_sales.webhook.error": "secret_unreadable" });
        await releaseDeliveries(deps.db, deps.holder, [claimed.delivery], UNREADABLE_RETRY_MS);
        if (onceInAWhile(`secret_unreadable:${endpoint.id}`)) {
          log.error("webhooks.secret_unreadable", {
            endpointId: endpoint.id,
            hint: "this instance's AUTH_SECRET is not the one the endpoint's signing secret was sealed with: every instance needs the same AUTH_SECRET (or rotate-secret from one that has it)",
          });
        }
        return;
      }
      const payload = render(claimed, endpoint);
      const result: SendResult =
        payload === null
          ? { durationMs: 0, statusCode: null, error: "sale_missing" }
          : await (deps.send ?? sendWebhook)(
              {
                url: endpoint.url,
                id: delivery.eventId,
                timestamp: now,
                body: JSON.stringify(payload),
                secrets,
              },
              { ...deps.limits, allowed },
            );
      noteOnSpan({
        "http.response.status_code": result.statusCode ?? 0,
        "partner_sales.webhook.error": result.error ?? "",
      });
      const key = { eventId: delivery.eventId, endpointId: endpoint.id, holder: deps.holder };
      if (result.error === null) {
        await recordDelivered({ ...key, durationMs: result.durationMs, statusCode: result.statusCode });
        countWebhookDelivery(delivery.type, "delivered");
        return;
      }
      const next = nextAttemptAt(delivery.attempts + 1, new Date());
      const { endpointNowFailing } = await markFailedAttempt(deps.db, key, result, next);
      countWebhookDelivery(delivery.type, next ? "retrying" : "dead");
      log.warn("webhooks.delivery_failed", {
        endpointId: endpoint.id,
        eventId: delivery.eventId,
        type: delivery.type,
        attempt: delivery.attempts + 1,
        statusCode: result.statusCode,
        reason: result.error,
        nextAttemptAt: next?.toISOString() ?? null,
      });
      if (endpointNowFailing) {
        log.error("webhooks.endpoint_failing", {
          endpointId: endpoint.id,
          // Where, without a query string that may carry the receiver's own token.
          url: new URL(endpoint.url).origin + new URL(endpoint.url).pathname,
          eventId: delivery.eventId,
          hint: "deliveries gave up after three days of retries: fix the receiver, then npm run webhooks -- enable and replay",
        });
      }
    },
  );
}

function render({ delivery, sale }: Claimed, endpoint: WebhookEndpoint): WebhookPayload | null {
  const event = { type: delivery.type, createdAt: delivery.eventCreatedAt, snapshot: delivery.snapshot };
  if (delivery.type === "customer.erased") return erasurePayload(event);
  return sale ? saleEventPayload(event, sale, endpoint.includeCustomer) : null;
}

const IDLE_MS = 250;
const QUEUE_EVERY_MS = 15_000;
/** Attempts in flight at once per instance: a slow receiver holds its own, never the others'. */
const MAX_IN_FLIGHT = 400;
/**
 * Attempts in flight at once per endpoint and instance: the sockets kept per receiver (lib/webhooks/send.ts
 * SOCKETS_PER_RECEIVER), so none waits for a socket inside its timeout, and a receiver that hangs holds at most
 * this many of the slots.
 */
const PER_ENDPOINT = SOCKETS_PER_RECEIVER;
/** After an attempt ends, how long the idle loop waits for others to end too before it claims again. */
const WAKE_MS = 5;

/**
 * Every instance runs one. It claims a batch, starts its attempts without waiting for them, and claims again at
 * once while batches come full and there is room (at most MAX_IN_FLIGHT attempts at a time), otherwise every
 * quarter second (an outcome's event goes out within about that). A receiver that answers slowly or endlessly holds
 * only its own attempts until the timeout; the others go on. The queue's figures are taken every 15 s. Stopping
 * waits for the attempts in flight; a process killed mid-attempt leaves leases that expire, and those deliveries
 * go again (at least once: the receiver deduplicates by `webhook-id`).
 */
export function startWebhookDispatcher(deps: DispatcherDeps): { stop(): Promise<void> } {
  const allowed = allowedNetworks(deps.limits.allowedNetworks);
  const inFlight = new Set<Promise<void>>();
  const perEndpoint = new Map<string, number>();
  const recordDelivered = deliveredRecorder(deps.db, deps.holder);
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let lastCount = 0;
  /** Whether the loop is waiting out IDLE_MS: an attempt of a saturated endpoint that ends cuts the wait short. */
  let idle = false;
  /**
   * Whether such an attempt ended while a cycle ran: that cycle may have left its endpoint out as saturated, so the
   * next comes after WAKE_MS, not IDLE_MS (else a receiver answering within the claim's own time would wait a
   * quarter second per 64 deliveries).
   */
  let wokenMeanwhile = false;
  const wake = () => {
    if (stopping) return;
    if (!idle) {
      wokenMeanwhile = true;
      return;
    }
    idle = false;
    clearTimeout(timer);
    timer = setTimeout(run, WAKE_MS);
    timer.unref?.();
  };
  const start = (claimed: Claimed) => {
    const endpointId = claimed.delivery.endpointId;
    perEndpoint.set(endpointId, (perEndpoint.get(endpointId) ?? 0) + 1);
    const attempt: Promise<void> = deliver(deps, allowed, claimed, recordDelivered)
      .catch((error: unknown) => log.error("webhooks.dispatch_failed", { error }))
      .finally(() => {
        inFlight.delete(attempt);
        const count = perEndpoint.get(endpointId) ?? 1;
        if (count > 1) perEndpoint.set(endpointId, count - 1);
        else perEndpoint.delete(endpointId);
        // A slot of a saturated endpoint is free: what waits for it may go now. Otherwise the idle loop's next look
        // comes soon enough, and takes whatever came meanwhile in one claim.
        if (count >= PER_ENDPOINT) wake();
      });
    inFlight.add(attempt);
  };
  /** Starts what the endpoint's limit allows; gives the rest back, due again for whoever has room. */
  const startWithin = async (batch: Claimed[]) => {
    const over: ClaimedDelivery[] = [];
    for (const claimed of batch) {
      if ((perEndpoint.get(claimed.delivery.endpointId) ?? 0) >= PER_ENDPOINT) over.push(claimed.delivery);
      else start(claimed);
    }
    await releaseDeliveries(deps.db, deps.holder, over);
  };
  const cycle = async () => {
    let full = false;
    try {
      // A claim costs about the same for one delivery as for a hundred: claim when there is room for half a batch.
      const room = MAX_IN_FLIGHT - inFlight.size;
      if (room >= BATCH / 2) {
        // Saturated endpoints are left out; the busiest of the others bounds the batch, so that a claim seldom
        // takes more than its endpoint may start (a partner has one endpoint or two: the usual case exactly).
        const counts = [...perEndpoint];
        const saturated = counts.filter(([, count]) => count >= PER_ENDPOINT).map(([id]) => id);
        const busiest = Math.max(
          0,
          ...counts.map(([, count]) => count).filter((count) => count < PER_ENDPOINT),
        );
        const limit = Math.min(BATCH, room, PER_ENDPOINT - busiest);
        const batch = await claim(deps, limit, saturated);
        await startWithin(batch);
        full = batch.length === limit;
      } else {
        await Promise.race(inFlight);
        full = true;
      }
      if (Date.now() - lastCount >= QUEUE_EVERY_MS) {
        lastCount = Date.now();
        const queue = await countWebhookQueue(deps.db);
        observeWebhookQueue(queue.pending, queue.oldestSeconds);
      }
    } catch (error) {
      log.error("webhooks.dispatch_failed", { error });
    }
    if (!stopping) {
      idle = !full && !wokenMeanwhile;
      timer = setTimeout(run, full ? 0 : wokenMeanwhile ? WAKE_MS : IDLE_MS);
      wokenMeanwhile = false;
      timer.unref?.();
    }
  };
  const run = () => {
    running = cycle();
  };
  timer = setTimeout(run, 0);
  timer.unref?.();
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await running;
      await Promise.all(inFlight);
    },
  };
}
