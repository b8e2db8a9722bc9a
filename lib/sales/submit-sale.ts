import "server-only";
import type { Database } from "@/lib/db/connection";
import { claimSubmission, SaleNotPendingError, outcomeColumns, recordOutcome } from "@/lib/db/queries/sales";
import type { Sale } from "@/lib/db/schema";
import { holdAuditTrail } from "@/lib/db/queries/audit-events";
import {
  EvidenceChangedError,
  recordSaleEvidence,
  type SaleEvidenceToRecord,
} from "@/lib/db/queries/sale-evidence";
import { log } from "@/lib/log";
import { currentTraceparent, inSpan, noteOnSpan, SUBMISSION_ID } from "@/lib/tracing";
import { buildSaleBody, type ProviderClient, type SaleOutcome } from "@/lib/provider";
import { deferOutcome } from "./outcome-outbox";
import { isHistory } from "./sale-result";
import type { ValidSale } from "@/lib/validation/sale";

/**
 * The ledger's row for a submission: its outcome, or `pending` while another request with this submissionId is
 * talking to the provider (`replay`: the row was there before this call). Or a submissionId that belongs to another
 * agent's sale.
 */
export type Submission =
  | { kind: "recorded"; replay: boolean; sale: Sale }
  | { kind: "not-yours" }
  /**
   * A failed sale recorded with an offer script's evidence, sent again without any or with other evidence (another
   * script, other confirmations, another recording): nothing sent.
   */
  | { kind: "evidence-changed" };

/**
 * The order that keeps every sale: the ledger row first (`pending`), then the upstream, then the outcome.
 * The same submissionId again returns what was recorded without calling the upstream.
 */
export async function submitSale(
  deps: { db: Database; provider: ProviderClient; partnerSource: string | undefined },
  input: {
    agentId: string | null;
    integrationId?: string | null;
    submissionId: string;
    sale: ValidSale;
    /** What was offered and confirmed, for a plan with an offer script (lib/sales/evidence.ts). */
    evidence?: SaleEvidenceToRecord;
  },
): Promise<Submission> {
  const { db, provider } = deps;
  const { agentId, submissionId, sale } = input;
  const integrationId = input.integrationId ?? null;
  const claim = await inSpan("ledger.claim", { [SUBMISSION_ID]: submissionId }, async () => {
    const claimInput = {
      submissionId,
      agentId,
      integrationId,
      traceparent: currentTraceparent(),
      request: buildSaleBody(sale, deps.partnerSource),
      withEvidence: Boolean(input.evidence),
    };
    const { evidence } = input;
    // A scripted sale's evidence is written with its claim, in one transaction: no sale goes out without it.
    const claim = evidence
      ? await db
          .transaction(async (tx) => {
            await holdAuditTrail(tx);
            const claim = await claimSubmission(tx, claimInput);
            if (claim.claimed) await recordSaleEvidence(tx, { ...evidence, protocol: claim.sale.protocol });
            return claim;
          })
          .catch((error: unknown) => {
            if (error instanceof EvidenceChangedError) return "evidence-changed" as const;
            throw error;
          })
      : await claimSubmission(db, claimInput);
    if (claim === "evidence-changed") {
      noteOnSpan({ "partner_sales.claimed": false });
      return claim;
    }
    noteOnSpan({ "partner_sales.claimed": claim.claimed, "partner_sales.status": claim.sale.status });
    return claim;
  });
  if (claim === "evidence-changed") return { kind: "evidence-changed" };
  if (!claim.claimed) {
    // The key belongs to the seller that made it: the same agent and the same integration (or none).
    if (claim.sale.agentId !== agentId || claim.sale.integrationId !== integrationId)
      return { kind: "not-yours" };
    // Failed, with a record, and sent again without evidence (claimSubmission did not claim it): its record tells
    // of an offer this attempt does not carry. An erased sale, or one whose customer asked for erasure, is history
    // and answers what was recorded.
    const { sale: held } = claim;
    if (held.status === "failed" && held.hasEvidence && !input.evidence && !isHistory(held)) {
      return { kind: "evidence-changed" };
    }
    if (claim.sale.status !== "pending")
      log.info("sales.replay", { submissionId, status: claim.sale.status });
    return { kind: "recorded", replay: true, sale: claim.sale };
  }

  let outcome: SaleOutcome;
  try {
    // A claim of a `failed` row is someone sending the same sale again after "nothing was sent, try again".
    outcome = await provider.postSale(sale, { submissionId, retry: claim.sale.attempts > 1 });
  } catch (error) {
    // A bug between the ledger and the answer: whether the sale left is not known, so it is never resent.
    log.error("sales.submit_crashed", { submissionId, error });
    outcome = { status: "unknown", reason: "connection-lost" };
  }
  try {
    const recorded = await inSpan(
      "ledger.record_outcome",
      { [SUBMISSION_ID]: submissionId, "partner_sales.status": outcome.status },
      () => recordOutcome(db, submissionId, outcome),
    );
    return { kind: "recorded", replay: false, sale: { ...claim.sale, ...recorded } };
  } catch (error) {
    if (error instanceof SaleNotPendingError) throw error;
    // The provider has answered: the agent learns the answer now, and the ledger as soon as it is back.
    deferOutcome(db, submissionId, outcome, error);
    return {
      kind: "recorded",
      replay: false,
      sale: { ...claim.sale, ...outcomeColumns(outcome), completedAt: new Date(), updatedAt: new Date() },
    };
  }
}
