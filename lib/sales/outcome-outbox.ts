import "server-only";
import type { Database } from "@/lib/db/connection";
import { SaleNotPendingError, recordOutcome } from "@/lib/db/queries/sales";
import { log } from "@/lib/log";
import type { SaleOutcome } from "@/lib/provider";

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

interface Deferred {
  db: Database;
  outcome: SaleOutcome;
  attempts: number;
}

const deferred = new Map<string, Deferred>();

/**
 * The provider answered but the database refused the outcome (it went down mid-sale). The answer is kept here
 * and written as soon as the database takes it; meanwhile the row stays `pending`, so the same submission is
 * never sent again. Should this process stop first, the stale-pending sweep marks the row `unknown` for a
 * supervisor, and the log line below says what the provider answered.
 */
export function deferOutcome(db: Database, submissionId: string, outcome: SaleOutcome, error: unknown) {
  log.error("sales.outcome_deferred", { submissionId, status: outcome.status, error });
  deferred.set(submissionId, { db, outcome, attempts: 0 });
  schedule(submissionId, FIRST_RETRY_MS);
}

function schedule(submissionId: string, delayMs: number) {
  setTimeout(() => void retry(submissionId), delayMs).unref();
}

async function retry(submissionId: string, { last = false } = {}) {
  const entry = deferred.get(submissionId);
  if (!entry) return;
  entry.attempts += 1;
  try {
    await recordOutcome(entry.db, submissionId, entry.outcome);
    deferred.delete(submissionId);
    log.info("sales.outcome_recorded_late", {
      submissionId,
      status: entry.outcome.status,
      attempts: entry.attempts,
    });
  } catch (error) {
    if (error instanceof SaleNotPendingError) {
      deferred.delete(submissionId);
      // Only possible if this process's ids did not reach the sweep (another instance swept): a supervisor
      // settled it without the provider's answer, which this line gives them.
      log.error("sales.outcome_settled_meanwhile", { submissionId, status: entry.outcome.status });
      return;
    }
    if (!last) return schedule(submissionId, Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** entry.attempts));
    // The process is stopping: the row stays `pending`, the sweep marks it `unknown`, and this line is what a
    // supervisor settling it needs to know.
    log.error("sales.outcome_unwritten_at_exit", {
      submissionId,
      status: entry.outcome.status,
      upstreamStatus: entry.outcome.httpStatus ?? null,
    });
  }
}

/** One last try at every held answer, when the server stops (scripts/server.mjs, after its drain). */
export async function writeDeferredOutcomes(): Promise<void> {
  await Promise.all(deferredSubmissionIds().map((submissionId) => retry(submissionId, { last: true })));
}

/** Submissions whose answer is held here: the stale-pending sweep leaves them alone. */
export function deferredSubmissionIds(): string[] {
  return [...deferred.keys()];
}
