import "server-only";
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db";
import { releaseLease, takeLease } from "@/lib/db/queries/job-leases";
import { spendBudget, type BudgetPolicy, type BudgetSpent } from "@/lib/db/queries/request-budgets";
import { getConfig } from "@/lib/env";
import { countLimitedRequest, type RequestLimitName } from "@/lib/metrics";
import { securityEventOnce } from "@/lib/security-log";
import type { ApiCaller } from "./api-caller";
import { verifySessionSpending, type SessionAgent } from "./session";

/** Who spends: a person's session, or an integration through one of its API keys (all its keys share a budget). */
export type Spender = SessionAgent | ApiCaller;
const isIntegration = (spender: Spender): spender is ApiCaller => "integrationId" in spender;
/** The budget's owner in its key, and the log's fields for a refusal. */
const budgetOwner = (spender: Spender) =>
  isIntegration(spender) ? `integration:${spender.integrationId}` : spender.id;
/** A budget's row: the limit and its owner (an agent's id, or `integration:<id>`). */
const budgetKey = (limit: SpentLimit, owner: string) => `${limit}:${owner}`;

/**
 * THE limits on what one person may ask: every expensive or revealing request spends from a budget here, kept in
 * the database so that all instances count together, and a refusal reads the same everywhere: `429 rate_limited`
 * with `Retry-After` (pages: the same words in pt-BR), a line in the security log (`access.refused`, reason
 * `rate_limited`, once every few minutes per person and limit), and `partner_sales_limited_requests_total{limit}`.
 * Ceilings come from configuration (docs/production.md: "Limits"); each is far above what a person at a desk does, and
 * near what a script on a stolen session would.
 */
export type Limited = { ok: true } | { ok: false; limit: RequestLimitName; retryAfterSeconds: number };

// A running export's end cannot be known: whoever waits for one asks again after this.
const EXPORT_RETRY_AFTER_SECONDS = 30;

const MINUTE = 60_000;

type SpentLimit = "sales" | "known_customer" | "history" | "api_reads";

function policyOf(limit: SpentLimit, byIntegration: boolean): BudgetPolicy {
  const limits = getConfig().limits;
  switch (limit) {
    case "sales":
      return { limit: byIntegration ? limits.apiSalesPerMinute : limits.salesPerMinute, windowMs: MINUTE };
    case "known_customer":
      return { limit: limits.knownCustomerChecksPerHour, windowMs: 60 * MINUTE };
    case "history":
      return { limit: limits.historyPagesPerMinute, windowMs: MINUTE };
    case "api_reads":
      return { limit: limits.apiReadsPerMinute, windowMs: MINUTE };
  }
}

/** Spends one request of `spender`'s budget for `limit`: whether it may go on, or how long to wait. */
export async function spendLimit(
  limit: SpentLimit,
  spender: Spender,
  now: Date = new Date(),
): Promise<Limited> {
  const owner = budgetOwner(spender);
  const spent = await spendBudget(
    await getDb(),
    budgetKey(limit, owner),
    policyOf(limit, isIntegration(spender)),
    now,
  );
  return limitedBy(limit, spender, spent, now);
}

function limitedBy(
  limit: SpentLimit,
  spender: Spender,
  spent: BudgetSpent,
  now: Date,
): Promise<Limited> | Limited {
  if (spent.allowed) return { ok: true };
  return refused(limit, spender, Math.max(1, Math.ceil((spent.renewsAt.getTime() - now.getTime()) / 1000)));
}

/**
 * The signed-in agent of this request with one request of their `limit` spent, in the session check's own round
 * trip (lib/dal/session.ts `verifySessionSpending`): null when no live session; the refusal when past the limit.
 */
export async function verifySessionAndSpend(
  limit: "sales",
  now: Date = new Date(),
): Promise<{ agent: SessionAgent; limited: Limited } | null> {
  const checked = await verifySessionSpending(
    (agentId) => budgetKey(limit, agentId),
    policyOf(limit, false),
    now,
  );
  if (!checked) return null;
  return { agent: checked.agent, limited: await limitedBy(limit, checked.agent, checked.spent, now) };
}

async function refused(limit: RequestLimitName, spender: Spender, retryAfterSeconds: number) {
  countLimitedRequest(limit);
  const person = isIntegration(spender) ? null : spender;
  await securityEventOnce(`limited:${limit}:${budgetOwner(spender)}`, "access.refused", {
    outcome: "failure",
    door: spender.door,
    agentId: person?.id ?? null,
    sessionId: person?.sessionId ?? null,
    reason: "rate_limited",
    details: { limit, retryAfterSeconds, ...(isIntegration(spender) ? { prefix: spender.prefix } : {}) },
  });
  return { ok: false, limit, retryAfterSeconds } as const;
}

// Exports read the ledger a batch at a time for as long as the download takes. One person runs one at a time
// (across instances, by a lease), and an instance at most two at once: on the embedded database each one
// shares the only thread with every agent's sale. (Kept on globalThis: one count per process, whatever bundle asks.)
const EXPORTS_PER_INSTANCE = 2;
const running = ((globalThis as { __partnerSalesExports?: { count: number } }).__partnerSalesExports ??= {
  count: 0,
});

export interface ExportSlot {
  /** Gives the slot back (idempotent): when the download ends, fails or is abandoned. */
  release(): Promise<void>;
}

/** A slot for `agent`'s export, or how long to wait for one. Throws only when the database does. */
export async function takeExportSlot(
  agent: SessionAgent,
): Promise<{ ok: true; slot: ExportSlot } | Extract<Limited, { ok: false }>> {
  const db = await getDb();
  const job = `export:${agent.id}`;
  const holder = randomUUID();
  // The lease outlives the export's own time bound a little: an instance that died mid-export frees it then.
  if (!(await takeLease(db, job, holder, getConfig().limits.exportMaxMs + MINUTE))) {
    return refused("export", agent, EXPORT_RETRY_AFTER_SECONDS);
  }
  if (running.count >= EXPORTS_PER_INSTANCE) {
    await releaseLease(db, job, holder);
    return refused("export_busy", agent, EXPORT_RETRY_AFTER_SECONDS);
  }
  running.count += 1;
  let released = false;
  return {
    ok: true,
    slot: {
      async release() {
        if (released) return;
        released = true;
        running.count -= 1;
        await releaseLease(db, job, holder);
      },
    },
  };
}
