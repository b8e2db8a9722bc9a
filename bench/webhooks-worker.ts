import { randomUUID } from "node:crypto";
import { fork } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { closeDb, getDb, type Database } from "../lib/db";
import { insertAgent } from "../lib/db/queries/agents";
import { claimSubmission, recordOutcome } from "../lib/db/queries/sales";
import { addWebhookEndpoint, countWebhookQueue, removeWebhookEndpoint } from "../lib/db/queries/webhooks";
import { WEBHOOK_EVENT_TYPES } from "../lib/db/schema";
import { startWebhookDispatcher } from "../lib/webhooks/dispatcher";
import { generateWebhookSecret, sealWebhookSecret } from "../lib/webhooks/secrets";
import { validSale } from "../sandbox/test-support";
import type { WebhookFigures } from "./lib/webhooks-report";
import { median, percentile } from "./lib/stats";

// Issue 35's figures (bench/webhooks.ts runs it), in a process of its own on an empty database (DATA_DIR, or
// DATABASE_URL), with the app's own sale writes (claimSubmission, recordOutcome: the trigger that writes the event
// is on that path) and the app's own dispatcher (lib/webhooks/dispatcher.ts) delivering to receivers on this host.
// Prints one JSON line: WebhookFigures.
const DATABASE = process.env.BENCH_WEBHOOKS_DATABASE ?? "PGlite";
const AUTH_SECRET = process.env.AUTH_SECRET!;
const ROUNDS = Number(process.env.BENCH_WEBHOOKS_ROUNDS ?? 15);
// Short blocks, many rounds: the embedded database drifts by a millisecond or more over a few hundred sales, and
// the median of many adjacent pairs sees past it where five long pairs did not.
const SALES_PER_BLOCK = 100;
const SALE_PACE_MS = 10;
const BACKLOG = Number(process.env.BENCH_WEBHOOKS_BACKLOG ?? 5_000);
const PACED_SALES = 600;
const PACE_MS = 20;
const OPERATOR = { actor: "bench", door: "cli" };
const log = (message: string) => console.error(`  [webhooks ${DATABASE}] ${message}`);

/**
 * Two receivers as a partner runs them, in a process of their own (bench/lib/webhook-receiver.mjs): their URLs, and
 * each event's arrival (wall-clock ms) noted in `arrivals` by its sale.
 */
async function receivers(arrivals: Map<string, number>): Promise<{ urls: string[]; stop(): void }> {
  const child = fork(join(import.meta.dirname, "lib/webhook-receiver.mjs"), ["2"], { stdio: "inherit" });
  const stopOnExit = () => child.kill("SIGKILL");
  process.once("exit", stopOnExit);
  const urls = await new Promise<string[]>((resolve, reject) => {
    child.on("message", (message: { urls?: string[]; arrivals?: [string, number][] }) => {
      if (message.urls) resolve(message.urls);
      for (const [submissionId, at] of message.arrivals ?? []) arrivals.set(submissionId, at);
    });
    child.once("exit", (code) => reject(new Error(`the receivers exited (${code})`)));
  });
  return {
    urls,
    stop() {
      process.off("exit", stopOnExit);
      child.kill();
    },
  };
}

/** Now, as the receivers' process measures it: wall-clock ms, sub-millisecond. */
const wallClock = () => performance.timeOrigin + performance.now();

const addEndpoint = (db: Database, url: string) =>
  addWebhookEndpoint(db, {
    url,
    events: [...WEBHOOK_EVENT_TYPES],
    includeCustomer: false,
    sealSecret: (id) => sealWebhookSecret(generateWebhookSecret(), AUTH_SECRET, id),
    actor: OPERATOR,
  });

/** One sale's two ledger writes, as the sale path makes them: the claim, then the provider's outcome. */
async function sell(db: Database, agentId: string): Promise<{ submissionId: string; ms: number }> {
  const submissionId = randomUUID();
  const started = performance.now();
  await claimSubmission(db, {
    submissionId,
    agentId,
    request: { ...validSale({ externalId: "BENCH" }), partnerSource: "Parceiro" } as never,
  });
  await recordOutcome(db, submissionId, { status: "accepted", httpStatus: 200, message: "ok" });
  return { submissionId, ms: performance.now() - started };
}

async function drained(db: Database) {
  while ((await countWebhookQueue(db)).pending > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function main() {
  const db = await getDb();
  const { id: agentId } = await insertAgent(db, {
    email: `bench-${randomUUID().slice(0, 8)}@example.com`,
    name: "Bench",
    role: "agent",
    passwordHash: null,
  });
  const arrivals = new Map<string, number>();
  const partner = await receivers(arrivals);
  const dispatch = () =>
    startWebhookDispatcher({
      db,
      holder: "bench",
      authSecret: AUTH_SECRET,
      limits: {
        timeoutMs: 10_000,
        maxResponseBytes: 64 * 1024,
        allowHttp: true,
        allowedNetworks: ["127.0.0.0/8"],
      },
    });
  let dispatcher = dispatch();
  for (let warm = 0; warm < 100; warm += 1) await sell(db, agentId);

  // 1. The sale's two writes with no endpoint and with two, alternating blocks, the dispatcher delivering meanwhile:
  // paced (a sale every SALE_PACE_MS, far above a call center's rate, with time between sales as in service), then
  // back to back (the instance saturated). On the embedded database the dispatcher's statements and CPU share the
  // sale's one thread.
  const rounds = async (paceMs: number, label: string) => {
    const none: number[] = [];
    const two: number[] = [];
    const differences: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const block = async (withEndpoints: boolean) => {
        const endpoints = withEndpoints
          ? [await addEndpoint(db, partner.urls[0]!), await addEndpoint(db, partner.urls[1]!)]
          : [];
        const times: number[] = [];
        for (let sale = 0; sale < SALES_PER_BLOCK; sale += 1) {
          times.push((await sell(db, agentId)).ms);
          if (paceMs > 0) await new Promise((resolve) => setTimeout(resolve, paceMs));
        }
        await drained(db);
        for (const endpoint of endpoints) await removeWebhookEndpoint(db, endpoint.id, OPERATOR);
        return times.sort((a, b) => a - b);
      };
      const order = round % 2 === 0 ? [false, true] : [true, false];
      const [first, second] = [await block(order[0]!), await block(order[1]!)];
      const [withNone, withTwo] = order[0] ? [second, first] : [first, second];
      none.push(...withNone);
      two.push(...withTwo);
      differences.push(percentile(withTwo, 50) - percentile(withNone, 50));
    }
    none.sort((a, b) => a - b);
    two.sort((a, b) => a - b);
    const figures = {
      noneP50Ms: percentile(none, 50),
      twoP50Ms: percentile(two, 50),
      noneP95Ms: percentile(none, 95),
      twoP95Ms: percentile(two, 95),
      addedP50Ms: median(differences),
    };
    log(
      `${label}: p50 ${figures.noneP50Ms.toFixed(2)} ms none, ${figures.twoP50Ms.toFixed(2)} ms two, added ${figures.addedP50Ms.toFixed(2)} ms`,
    );
    return figures;
  };
  const paced = await rounds(SALE_PACE_MS, `a sale every ${SALE_PACE_MS} ms`);
  const saturated = await rounds(0, "back to back");

  // 2. A backlog (no dispatcher running while the sales are made: every instance was down) delivered by one.
  await addEndpoint(db, partner.urls[0]!);
  await dispatcher.stop();
  for (let sale = 0; sale < BACKLOG; sale += 1) await sell(db, agentId);
  const queued = (await countWebhookQueue(db)).pending;
  const started = performance.now();
  dispatcher = dispatch();
  await drained(db);
  const backlogSeconds = (performance.now() - started) / 1000;
  log(`backlog: ${queued} events in ${backlogSeconds.toFixed(2)} s`);

  // 3. From the outcome's commit to the receiver, one sale every PACE_MS.
  arrivals.clear();
  const committed = new Map<string, number>();
  for (let sale = 0; sale < PACED_SALES; sale += 1) {
    const { submissionId } = await sell(db, agentId);
    committed.set(submissionId, wallClock());
    await new Promise((resolve) => setTimeout(resolve, PACE_MS));
  }
  await drained(db);
  // The receivers report arrivals every 20 ms: wait for the last of them.
  while ([...committed.keys()].some((submissionId) => !arrivals.has(submissionId))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const latencies = [...committed]
    .map(([submissionId, at]) => arrivals.get(submissionId)! - at)
    .sort((a, b) => a - b);

  await dispatcher.stop();
  partner.stop();
  const figures: WebhookFigures = {
    database: DATABASE,
    rounds: ROUNDS,
    salesPerBlock: SALES_PER_BLOCK,
    salePaceMs: SALE_PACE_MS,
    sale: paced,
    saturated,
    backlog: { events: queued, seconds: backlogSeconds, eventsPerSecond: queued / backlogSeconds },
    outcomeToDelivery: {
      events: latencies.length,
      p50Ms: percentile(latencies, 50),
      p95Ms: percentile(latencies, 95),
      maxMs: latencies.at(-1)!,
    },
    loadAverage: loadavg()[0]!,
  };
  await closeDb();
  console.log(JSON.stringify(figures));
}

await main();
