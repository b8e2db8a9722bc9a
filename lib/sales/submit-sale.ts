import "server-only";
import type { Database } from "@/lib/db/connection";
import {
  claimSubmission,
  OutcomeAlreadySettledError,
  recordOutcome,
  type RecordedOutcome,
} from "@/lib/db/queries/sales";
import type { Sale } from "@/lib/db/schema";
import { log } from "@/lib/log";
import { inSpan, noteOnSpan, SUBMISSION_ID } from "@/lib/tracing";
import { buildSaleBody, type PartnerApiClient, type SaleOutcome } from "@/lib/partner-api";
import { deferOutcome } from "./outcome-outbox";
import type { ValidSale } from "@/lib/validation/sale";

export type SubmissionResult =
  | { kind: "completed"; replay: boolean; sale: Sale }
  /** Another request with this submissionId is talking to the upstream right now. */
  | { kind: "in-flight"; sale: Sale }
  /** The submissionId belongs to another agent's sale. */
  | { kind: "not-yours" };

function toRecord(outcome: SaleOutcome): RecordedOutcome {
  switch (outcome.status) {
    case "accepted":
      return {
        status: "accepted",
        upstreamStatus: outcome.httpStatus,
        upstreamMessage: outcome.message,
        outcomeDetail: null,
        rejectedFields: null,
      };
    case "rejected":
      return {
        status: "rejected",
        upstreamStatus: outcome.httpStatus,
        upstreamMessage: outcome.message,
        outcomeDetail: null,
        rejectedFields: outcome.fields,
      };
    case "failed":
      return {
        status: "failed",
        upstreamStatus: outcome.httpStatus ?? null,
        upstreamMessage: null,
        outcomeDetail: outcome.code,
        rejectedFields: null,
      };
    case "unknown":
      return {
        status: "unknown",
        upstreamStatus: outcome.httpStatus ?? null,
        upstreamMessage: null,
        outcomeDetail: outcome.reason,
        rejectedFields: null,
      };
  }
}

/**
 * The order that keeps every sale: the ledger row first (`pending`), then the upstream, then the outcome.
 * The same submissionId again returns what was recorded without calling the upstream.
 */
export async function submitSale(
  deps: { db: Database; partnerApi: PartnerApiClient; partnerSource: string | undefined },
  input: { agentId: string; submissionId: string; sale: ValidSale },
): Promise<SubmissionResult> {
  const { db, partnerApi } = deps;
  const { agentId, submissionId, sale } = input;
  const claim = await inSpan("ledger.claim", { [SUBMISSION_ID]: submissionId }, async () => {
    const claim = await claimSubmission(db, {
      submissionId,
      agentId,
      request: buildSaleBody(sale, deps.partnerSource),
    });
    noteOnSpan({ "partner_sales.claimed": claim.claimed, "partner_sales.status": claim.sale.status });
    return claim;
  });
  if (!claim.claimed) {
    if (claim.sale.agentId !== agentId) return { kind: "not-yours" };
    if (claim.sale.status === "pending") return { kind: "in-flight", sale: claim.sale };
    log.info("sales.replay", { submissionId, status: claim.sale.status });
    return { kind: "completed", replay: true, sale: claim.sale };
  }

  let outcome: SaleOutcome;
  try {
    // A claim of a `failed` row is someone sending the same sale again after "nothing was sent, try again".
    outcome = await partnerApi.submitSale(sale, { submissionId, retry: claim.sale.attempts > 1 });
  } catch (error) {
    // A bug between the ledger and the answer: whether the sale left is not known, so it is never resent.
    log.error("sales.submit_crashed", { submissionId, error });
    outcome = { status: "unknown", reason: "connection-lost" };
  }
  const record = toRecord(outcome);
  try {
    const recorded = await inSpan(
      "ledger.record_outcome",
      { [SUBMISSION_ID]: submissionId, "partner_sales.status": record.status },
      () => recordOutcome(db, submissionId, record),
    );
    return { kind: "completed", replay: false, sale: recorded };
  } catch (error) {
    if (error instanceof OutcomeAlreadySettledError) throw error;
    // The provider has answered: the agent learns the answer now, and the ledger as soon as it is back.
    deferOutcome(db, submissionId, record, error);
    return {
      kind: "completed",
      replay: false,
      sale: { ...claim.sale, ...record, completedAt: new Date(), updatedAt: new Date() },
    };
  }
}
