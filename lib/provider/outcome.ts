import type { ErrorCode } from "@/lib/errors";
import type { PartnerSaleField } from "./types";

/** What became of a sale sent to the provider, as the client classifies its answer (or the lack of one). */
export type SaleOutcome =
  | { status: "accepted"; httpStatus: number; message: string }
  | { status: "rejected"; httpStatus: number; message: string; fields: PartnerSaleField[] }
  /** Nothing was sent, or the upstream refused us before looking at the sale: safe to submit again. */
  | {
      status: "failed";
      code: ErrorCode | "partner_api.unreachable" | "partner_api.unauthorized";
      httpStatus?: number;
    }
  /** The sale was sent and no trustworthy answer came back: it may exist upstream. Never retried. */
  | {
      status: "unknown";
      reason: "timeout" | "connection-lost" | "server-error" | "malformed-answer";
      httpStatus?: number;
    };

/** The failure's error code, or why the outcome is unknown: what the ledger and the log record beside the status. */
export function outcomeDetail(outcome: SaleOutcome): string | null {
  if (outcome.status === "failed") return outcome.code;
  return outcome.status === "unknown" ? outcome.reason : null;
}
