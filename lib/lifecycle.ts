// Shared with scripts/server.mjs, the process's HTTP server, which runs outside the app's bundle: symbols in the
// global registry are the same in both.
const DRAINING = Symbol.for("partner-sales.draining");
const DRAIN_PLAN = Symbol.for("partner-sales.drain-plan");
const BEFORE_EXIT_HOOKS = Symbol.for("partner-sales.before-exit-hooks");
const CLOSE_AT_EXIT_HOOKS = Symbol.for("partner-sales.close-at-exit-hooks");
const STARTING = Symbol.for("partner-sales.starting");

const registry = globalThis as Record<symbol, unknown>;

/** Whether the process got SIGTERM and is finishing its requests in flight (readiness answers 503). */
export function isDraining(): boolean {
  return registry[DRAINING] === true;
}

/**
 * Whether the server is still getting ready (the database opening, or recovering after an unclean stop; its first
 * upkeep): readiness answers 503 `starting` meanwhile, so `npm start` and load balancers wait instead of giving up.
 */
export function isStarting(): boolean {
  return registry[STARTING] === true;
}

export function setStarting(starting: boolean): void {
  registry[STARTING] = starting;
}

/**
 * The longest a sale can take here: two token exchanges and two sale calls (a 401 renews the token once) at the
 * upstream timeout each, and a margin. A `pending` sale older than that has lost its process (the sweep marks it
 * `unknown`), and a draining server waits no longer than that for its requests in flight.
 */
export function saleDeadlineMs(upstreamTimeoutMs: number): number {
  return 4 * upstreamTimeoutMs + 5_000;
}

/**
 * What the server does on SIGTERM (scripts/server.mjs reads it there): keep serving, readiness 503, for `delayMs`;
 * then close the listener and wait up to `limitMs` for the requests in flight.
 */
export function publishDrainPlan(plan: { delayMs: number; limitMs: number }): void {
  registry[DRAIN_PLAN] = plan;
}

/**
 * Work to finish once the drain is done and before the process exits: held outcomes written, queued traces sent.
 * scripts/server.mjs runs them all and waits a few seconds at most.
 */
export function beforeExit(hook: () => Promise<unknown>): void {
  ((registry[BEFORE_EXIT_HOOKS] as (() => Promise<unknown>)[] | undefined) ??= []).push(hook);
}

/**
 * What the process closes last, after every `beforeExit` hook (they may still write to it): the database, so that
 * the embedded one is checkpointed and the next start replays no write-ahead log.
 */
export function closeAtExit(hook: () => Promise<unknown>): void {
  ((registry[CLOSE_AT_EXIT_HOOKS] as (() => Promise<unknown>)[] | undefined) ??= []).push(hook);
}
