import "server-only";
import type { BlockList } from "node:net";
import type { Database } from "@/lib/db/connection";
import { findApiSales, type ApiSaleRow } from "@/lib/db/queries/api-sales";
import {
  claimDueDeliveries,
  countWebhookQueue,
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
import { sendWebhook, type SendLimits, type SendResult } from "./send";

/**
 * After each failed attempt, the wait before the next (±20% jitter): quick at first, for a receiver that blinked,
 * then hours apart, for one down for the night. Thirteen retries over 2 days 22 hours; then the delivery is dead
 * and its endpoint failing (README: "Webhooks").
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
async function claim(deps: DispatcherDeps, limit: number): Promise<Claimed[]> {
  const claimed = await claimDueDeliveries(deps.db, { holder: deps.holder, limit, leaseMs: leaseMs(deps) });
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
      const payload = secrets.length > 0 ? render(claimed, endpoint) : null;
      const result: SendResult =
        secrets.length === 0
          ? { durationMs: 0, statusCode: null, error: "secret_unreadable" }
          : payload === null
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
          url: endpoint.url,
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
  const recordDelivered = deliveredRecorder(deps.db, deps.holder);
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let lastCount = 0;
  const start = (claimed: Claimed) => {
    const attempt: Promise<void> = deliver(deps, allowed, claimed, recordDelivered)
      .catch((error: unknown) => log.error("webhooks.dispatch_failed", { error }))
      .finally(() => inFlight.delete(attempt));
    inFlight.add(attempt);
  };
  const cycle = async () => {
    let full = false;
    try {
      // A claim costs about the same for one delivery as for a hundred: claim when there is room for half a batch.
      const room = MAX_IN_FLIGHT - inFlight.size;
      if (room >= BATCH / 2) {
        const limit = Math.min(BATCH, room);
        const batch = await claim(deps, limit);
        for (const claimed of batch) start(claimed);
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
      timer = setTimeout(run, full ? 0 : IDLE_MS);
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
