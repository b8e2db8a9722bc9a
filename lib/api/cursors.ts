import { isUuid } from "@/lib/validation/sale";
import type { ChangePoint } from "@/lib/db/queries/api-sales";

/**
 * The cursors of GET /api/v1/sales, opaque to clients (base64url): a search's names the last sale of its page; the
 * changes feed's names the last change read (its time to the microsecond, and the sale). Only what this API wrote
 * decodes; anything else is an `invalid_query`.
 */

const encode = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const decode = (cursor: string) => Buffer.from(cursor, "base64url").toString("utf8");

const NO_SALE = "00000000-0000-0000-0000-000000000000";

export const searchCursor = (submissionId: string): string => encode(`s:${submissionId}`);

export function readSearchCursor(cursor: string): string | null {
  const [kind, submissionId] = decode(cursor).split(":");
  return kind === "s" && isUuid(submissionId) ? submissionId : null;
}

export const feedCursor = (point: ChangePoint): string => encode(`f:${point.micros}:${point.submissionId}`);

/** A feed cursor, or a date-time to start from (every change after it). */
export function readFeedStart(updatedAfter: string): ChangePoint | null {
  if (/^\d{4}-\d\d-\d\dT/.test(updatedAfter)) {
    const time = Date.parse(updatedAfter);
    return Number.isNaN(time) ? null : { micros: String(BigInt(time) * 1000n), submissionId: NO_SALE };
  }
  const [kind, micros, submissionId, ...rest] = decode(updatedAfter).split(":");
  if (kind !== "f" || rest.length > 0 || !/^-?\d{1,18}$/.test(micros ?? "") || !isUuid(submissionId))
    return null;
  return { micros: micros!, submissionId: submissionId! };
}
