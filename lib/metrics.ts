import "server-only";
import { subscribe } from "node:diagnostics_channel";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import {
  databaseErrors,
  upkeepTasks,
  databaseRoundTrips,
  type DatabaseErrorMessage,
  type UpkeepTaskMessage,
} from "@/lib/db/channels";
import {
  tokenExchanges,
  upstreamRequests,
  type TokenExchangeMessage,
  type UpstreamRequestMessage,
} from "@/lib/provider/channels";

/**
 * What the app counts for Prometheus (`GET /api/metrics`, behind METRICS_TOKEN). Every label takes its values from
 * a fixed list written here or from the error vocabulary (lib/errors): never a customer's data, an id or a
 * path, so the number of series stays bounded whatever the traffic.
 */

/** What became of one sale submission (the form's or the JSON API's). */
export type SaleMetricOutcome =
  | "accepted"
  | "rejected"
  | "failed"
  | "unknown"
  | "replayed"
  | "pending"
  | "known_customer"
  | "invalid"
  /** Past the agent's limit (lib/dal/limits.ts): nothing checked or sent. */
  | "limited"
  | "refused"
  | "unavailable";

export type SignInMethod = "password" | "oidc" | "portal";

// Submissions are answered in tens of milliseconds, or wait on the provider up to its timeout (15 s by default).
const SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    sales: new Counter({
      name: "partner_sales_sales_total",
      help: "Sale submissions by what became of them.",
      labelNames: ["outcome"] as const,
      registers,
    }),
    saleDuration: new Histogram({
      name: "partner_sales_sale_duration_seconds",
      help: "Time from a sale submission's arrival to its answer, by what became of it.",
      labelNames: ["outcome"] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    upstreamDuration: new Histogram({
      name: "partner_sales_upstream_request_duration_seconds",
      help: "Requests to the provider, by endpoint and status class, until their answer was read.",
      labelNames: ["endpoint", "status_class"] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    tokenExchanges: new Counter({
      name: "partner_sales_token_exchanges_total",
      help: "Client-credentials token exchanges with the provider, by result (ok or the error code).",
      labelNames: ["result"] as const,
      registers,
    }),
    openSales: new Gauge({
      name: "partner_sales_open_sales",
      help: "Sales waiting for an outcome: pending (on their way now) and unknown (a supervisor must settle them).",
      labelNames: ["status"] as const,
      registers,
    }),
    signInRefusals: new Counter({
      name: "partner_sales_sign_in_refusals_total",
      help: "Refused sign-ins by method and reason.",
      labelNames: ["method", "reason"] as const,
      registers,
    }),
    idpErrors: new Counter({
      name: "partner_sales_oidc_idp_errors_total",
      help: "Errors the partner's IdP answered a sign-in with, by where (authorization, token) and code (or 'other').",
      labelNames: ["from", "error"] as const,
      registers,
    }),
    apiKeyRefusals: new Counter({
      name: "partner_sales_api_key_refusals_total",
      help: "Requests to /api/v1 refused at the key check, by reason (no key, malformed, unknown, revoked, expired, scope missing…).",
      labelNames: ["reason"] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: "partner_sales_webhook_deliveries_total",
      help: "Webhook delivery attempts by event type and result (delivered, retrying, dead).",
      labelNames: ["event", "result"] as const,
      registers,
    }),
    webhookQueue: new Gauge({
      name: "partner_sales_webhook_queue_depth",
      help: "Webhook deliveries waiting to be sent (pending), every endpoint together.",
      registers,
    }),
    webhookOldest: new Gauge({
      name: "partner_sales_webhook_oldest_pending_seconds",
      help: "Age of the oldest undelivered webhook event (0 when none waits).",
      registers,
    }),
    limitedRequests: new Counter({
      name: "partner_sales_limited_requests_total",
      help: "Requests refused for a limit (429): sales, known-customer checks, history pages, exports.",
      labelNames: ["limit"] as const,
      registers,
    }),
    databaseErrors: new Counter({
      name: "partner_sales_database_errors_total",
      help: "Failed database queries and connections, by SQLSTATE class (or 'connection' when none came back).",
      labelNames: ["class"] as const,
      registers,
    }),
    databaseUpkeep: new Histogram({
      name: "partner_sales_db_upkeep_seconds",
      help: "The embedded database's upkeep (VACUUM, ANALYZE, merging GIN pending lists), by task: every request waits meanwhile.",
      labelNames: ["task"] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    databaseRoundTrips: new Counter({
      name: "partner_sales_db_round_trips_total",
      help: "Requests this process sent to its database: each query on PostgreSQL (BEGIN and COMMIT included), each call into the embedded one.",
      registers,
    }),
    databaseUp: new Gauge({
      name: "partner_sales_database_up",
      help: "1 when the database answered the last scrape's query, 0 when it did not.",
      registers,
    }),
  };
}

type Metrics = ReturnType<typeof createMetrics>;

/**
 * The provider's client publishes its requests and token exchanges (lib/provider/channels.ts), the database
 * connection its failures and the embedded database's upkeep its tasks (lib/db/channels.ts).
 */
function listen({
  upstreamDuration,
  tokenExchanges: exchanges,
  databaseUpkeep,
  databaseRoundTrips: trips,
}: Metrics) {
  subscribe(upstreamRequests.name, (message) => {
    const { endpoint, statusClass, seconds } = message as UpstreamRequestMessage;
    upstreamDuration.observe({ endpoint, status_class: statusClass }, seconds);
  });
  subscribe(tokenExchanges.name, (message) => {
    exchanges.inc({ result: (message as TokenExchangeMessage).result });
  });
  subscribe(databaseErrors.name, (message) => countDatabaseError((message as DatabaseErrorMessage).sqlState));
  subscribe(databaseRoundTrips.name, (count) => trips.inc(count as number));
  subscribe(upkeepTasks.name, (message) => {
    const { task, seconds } = message as UpkeepTaskMessage;
    databaseUpkeep.observe({ task }, seconds);
  });
}

// One set per process: Next.js may load this module once per bundle (routes, actions, instrumentation). The
// server creates it at start (lib/server-start.ts), so that the provider's first requests are counted.
const holder = globalThis as { __partnerSalesMetrics?: Metrics };
export function metrics(): Metrics {
  if (!holder.__partnerSalesMetrics) {
    holder.__partnerSalesMetrics = createMetrics();
    listen(holder.__partnerSalesMetrics);
  }
  return holder.__partnerSalesMetrics;
}

export function observeSale(outcome: SaleMetricOutcome, seconds: number): void {
  metrics().sales.inc({ outcome });
  metrics().saleDuration.observe({ outcome }, seconds);
}

export function countSignInRefusal(method: SignInMethod, reason: string): void {
  metrics().signInRefusals.inc({ method, reason });
}

/** An error code the IdP answered (lib/auth/idp-error.ts): `invalid_client` is the set-up, not an outage. */
/** Every refusal at the API's key check, unlike the log, which tells of each a while. */
export function countApiKeyRefusal(reason: string): void {
  metrics().apiKeyRefusals.inc({ reason });
}

/** One webhook attempt's result: `delivered`, `retrying` (another attempt is due) or `dead` (given up). */
export function countWebhookDelivery(event: string, result: "delivered" | "retrying" | "dead"): void {
  metrics().webhookDeliveries.inc({ event, result });
}

/** What waits to be delivered, as the dispatcher last counted it. */
export function observeWebhookQueue(pending: number, oldestSeconds: number): void {
  metrics().webhookQueue.set(pending);
  metrics().webhookOldest.set(oldestSeconds);
}

export function countIdpError(from: "authorization" | "token", error: string): void {
  metrics().idpErrors.inc({ from, error });
}

/** What a request was refused for (lib/dal/limits.ts): its label in `partner_sales_limited_requests_total`. */
export type RequestLimitName =
  "sales" | "known_customer" | "history" | "export" | "export_busy" | "api_reads";

export function countLimitedRequest(limit: RequestLimitName): void {
  metrics().limitedRequests.inc({ limit });
}

/**
 * A failed query or connection: the SQLSTATE the server answered (its class, "08", "57"…, is the label), or
 * undefined when none came back (the connection failed), labelled `connection`.
 */
export function countDatabaseError(sqlState: string | undefined): void {
  // PostgreSQL's classes: two digits-or-capitals starting with a digit, or F0, HV, P0, XX (not EPIPE, EPERM…).
  const sqlStateClass =
    sqlState && /^([0-9][0-9A-Z]|F0|HV|P0|XX)[0-9A-Z]{3}$/.test(sqlState)
      ? sqlState.slice(0, 2)
      : "connection";
  metrics().databaseErrors.inc({ class: sqlStateClass });
}
