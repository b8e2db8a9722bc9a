import "server-only";
import { SYSTEM_DOOR } from "./auth/doors";
import { seedDemoAccounts } from "./auth/demo-accounts";
import { runRetention } from "./customers/retention";
import { ConfigError, type Config } from "./config/parse";
import { closeDb, getDb } from "./db";
import type { Database } from "./db/connection";
import { chainHead } from "./db/queries/audit-events";
import { startUpkeep, type UpkeepSchedule } from "./db/upkeep";
import { accountsToReview } from "./db/queries/identities";
import { markStalePendingUnknown } from "./db/queries/sales";
import { deferredSubmissionIds, writeDeferredOutcomes } from "./sales/outcome-outbox";
import { getConfig } from "./env";
import {
  beforeExit,
  closeAtExit,
  isDraining,
  publishDrainPlan,
  saleDeadlineMs,
  setStarting,
} from "./lifecycle";
import { isTrustedPeer } from "./http/forwarded";
import { log, scrubPersonalData } from "./log";
import { metrics } from "./metrics";
import { provider } from "./provider";
import { startWebhookDispatcher } from "./webhooks/dispatcher";
import { resolveAuthSecret } from "./auth/secret";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

const RETENTION_ACTOR = { actor: "retention", door: SYSTEM_DOOR } as const;
const CHAIN_HEAD_EVERY_MS = 5 * 60_000;

/** How often each instance offers to run retention; the lease lets one of them at a time. */
const RETENTION_EVERY_MS = 60 * 60_000;

/** A job of the server's own: now, then every `everyMs`; a failed run is logged as `failure` and the next one tried. */
function repeat(task: () => Promise<void>, everyMs: number, failure: string): void {
  const guarded = () => void task().catch((error) => log.error(failure, { error }));
  guarded();
  setInterval(guarded, everyMs).unref();
}

/**
 * Customer-data retention, at start and hourly after (lib/customers/retention.ts). With retention off, the run
 * still carries out erasure requests that waited for their sale to be settled.
 */
function scheduleRetention(db: Database, config: Config, upkeep: UpkeepSchedule): void {
  const days = config.customerDataRetentionDays;
  if (days === null) {
    log.warn("customers.retention_off", {
      hint: "CUSTOMER_DATA_RETENTION_DAYS=0: customers' personal data is kept until they ask for erasure",
    });
  } else {
    log.info("customers.retention", { days });
  }
  const run = async () => {
    const result = await runRetention(db, { retentionDays: days, actor: RETENTION_ACTOR });
    if (result.expired + result.requested > 0) {
      log.info("customers.retention_erased", { ...result });
      // Erased rows leave old versions and stale statistics behind: the upkeep looks at once, not in ten minutes.
      void upkeep.request("retention");
    }
  };
  repeat(run, RETENTION_EVERY_MS, "customers.retention_failed");
}

/**
 * The audit trail's newest row, in the log every few minutes when it moved (and at start): whoever deletes the
 * trail's last rows cannot delete these lines too, and `npm run audit -- verify --log` holds the trail against them.
 */
function scheduleChainHeadLog(db: Database): void {
  let logged: string | undefined;
  const logHead = async () => {
    const head = await chainHead(db);
    if (!head || `${head.seq}:${head.hash}` === logged) return;
    logged = `${head.seq}:${head.hash}`;
    log.info("audit.chain_head", { seq: head.seq, hash: head.hash });
  };
  repeat(logHead, CHAIN_HEAD_EVERY_MS, "audit.chain_head_failed");
}

/**
 * Accounts with an identity that earlier versions may have linked by e-mail (migration 0013 could not tell): the
 * door may be someone else's. Said at every start until an operator decides (npm run agents -- list).
 */
async function reportAccountsToReview(db: Database): Promise<void> {
  const toReview = await accountsToReview(db);
  if (toReview.length === 0) return;
  log.warn("identity.review", {
    accounts: toReview.length,
    agentIds: toReview.slice(0, 50).map((agent) => agent.agentId),
    hint: "npm run agents -- list shows them: unlink a door that is not theirs, or confirm each link with agents link",
  });
}

function stop(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

const OPENING_PROGRESS_EVERY_MS = 5_000;

/**
 * The database, with a line every few seconds while it is not there yet: after an unclean stop the embedded one
 * replays its write-ahead log first (minutes, at a large one), and the operator sees it is busy, not hung.
 */
async function openDatabaseSaying(): Promise<Database> {
  const started = performance.now();
  const progress = setInterval(
    () => log.info("db.opening", { seconds: Math.round((performance.now() - started) / 1000) }),
    OPENING_PROGRESS_EVERY_MS,
  );
  try {
    return await getDb();
  } finally {
    clearInterval(progress);
  }
}

/**
 * Everything the server needs from its database before it is ready, meanwhile readiness answers `starting`: the
 * embedded database's first upkeep among it (statistics for a ledger that has none: seconds at a million sales,
 * every request held meanwhile).
 */
async function prepareDatabase(
  config: Config,
  stopping: AbortSignal,
): Promise<{ upkeep: UpkeepSchedule; webhooks: { stop(): Promise<void> } }> {
  const db = await openDatabaseSaying();
  if (config.mode === "sandbox") await seedDemoAccounts(db);
  // Sales left pending by a process that stopped mid-call may exist upstream: a supervisor checks them.
  const orphanAfterMs = saleDeadlineMs(config.provider.timeoutMs);
  const sweep = async () => {
    const interrupted = await markStalePendingUnknown(db, orphanAfterMs, deferredSubmissionIds());
    if (interrupted > 0) log.warn("sales.interrupted_marked_unknown", { count: interrupted });
  };
  await sweep();
  setInterval(
    () => void sweep().catch((error) => log.error("sales.sweep_failed", { error })),
    orphanAfterMs,
  ).unref();
  const upkeep = await startUpkeep(db, stopping);
  scheduleRetention(db, config, upkeep);
  // A line for the operator: its failure must not stop the start.
  await reportAccountsToReview(db).catch((error) => log.error("identity.review_failed", { error }));
  scheduleChainHeadLog(db);
  // The webhooks' deliveries, on every instance: the leases keep two from sending the same one.
  const webhooks = startWebhookDispatcher({
    db,
    holder: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    authSecret: resolveAuthSecret(config),
    limits: {
      timeoutMs: config.webhooks.timeoutMs,
      maxResponseBytes: WEBHOOK_ANSWER_BYTES,
      allowHttp: config.webhooks.allowHttp,
      allowedNetworks: config.webhooks.allowedNetworks,
    },
  });
  return { upkeep, webhooks };
}

/** Of a receiver's answer only the status counts: this much is read, and nothing kept. */
const WEBHOOK_ANSWER_BYTES = 64 * 1024;

/**
 * Runs once when the Next.js server boots: configuration is checked before anything listens; the database opens
 * behind a readiness that answers `starting` (lib/lifecycle.ts), so a long recovery is waited for, not mistaken
 * for a dead server.
 */
export async function startServer(): Promise<void> {
  let config;
  try {
    config = getConfig();
  } catch (error) {
    if (error instanceof ConfigError) stop(`Configuration error: ${error.message}`);
    throw error;
  }
  log.info("server.config", {
    mode: config.mode,
    upstream: config.provider.baseUrl,
    clientId: config.provider.clientId,
    plans: config.plans?.length ?? 0,
    database: config.databaseUrl ? "postgresql" : "pglite",
  });
  if (config.oidc?.autoCreate && config.oidc.allowedEmailDomains.length === 0) {
    // Fine for the partner's own directory; on a shared IdP (Google, a realm with self-registration) it lets in
    // anyone with an account there, so the operator reads it once at every start.
    log.warn("server.oidc_open_enrolment", {
      issuer: config.oidc.issuer,
      hint: "OIDC_AUTO_CREATE=on without OIDC_ALLOWED_EMAIL_DOMAINS: every account at this IdP with a verified e-mail becomes an agent",
    });
  }

  // scripts/server.mjs asks this of every request's peer before Next.js sees its X-Forwarded-Host.
  (globalThis as Record<symbol, unknown>)[Symbol.for("partner-sales.trusted-peer")] = isTrustedPeer;
  // Listening before the first request to the provider (the warm-up below): see lib/metrics.ts.
  metrics();
  publishDrainPlan({
    delayMs: config.drainDelayMs,
    limitMs: saleDeadlineMs(config.provider.timeoutMs),
  });
  beforeExit(writeDeferredOutcomes);
  setStarting(true);
  const started = performance.now();
  const stopping = new AbortController();
  const prepared = prepareDatabase(config, stopping.signal);
  closeAtExit(async () => {
    // Stopped while starting too: the upkeep ends after its current statement, and the database is closed once
    // nothing uses it any more, not under the start's own queries.
    stopping.abort();
    const running = await prepared.catch(() => undefined);
    await running?.webhooks.stop();
    await running?.upkeep.stop();
    await closeDb();
  });
  void prepared.then(
    () => {
      if (isDraining()) return;
      setStarting(false);
      log.info("server.ready", { ms: Math.round(performance.now() - started) });
      // A wrong credential shows up in the operator's log at deploy time, not at the first customer's sale.
      void provider().warmUp();
    },
    (error: unknown) => {
      // Closed under it by a stop during the start: the stop goes on, this is no start-up failure.
      if (isDraining()) return;
      stop(`Database error: ${scrubPersonalData(error instanceof Error ? error.message : String(error))}`);
    },
  );
}
