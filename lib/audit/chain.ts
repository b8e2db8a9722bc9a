import { createHash } from "node:crypto";
import type { ChainRow } from "@/lib/db/queries/audit-events";

/** The first row's previous hash. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * The text a row's hash covers, rebuilt here rather than asked of the database's function (which whoever owns the
 * schema could replace): the JSON array migration 0013's trigger builds, in PostgreSQL's jsonb text form (", " between
 * elements, strings escaped as JSON.stringify does), with `details` as the database prints it.
 */
export function chainContent(row: Omit<ChainRow, "id">): string {
  const text = (value: string | null) => (value === null ? "null" : JSON.stringify(value));
  return `[${row.seq}, ${[row.at, row.action, row.actor, row.door, row.agentId, row.protocol, row.reason]
    .map(text)
    .join(", ")}, ${row.details}]`;
}

export function chainHash(previousHash: string, row: Omit<ChainRow, "id">): string {
  return createHash("sha256")
    .update(previousHash + chainContent(row), "utf8")
    .digest("hex");
}

/** Where the chain breaks, said so that an operator finds the row. */
export type ChainBreak =
  /** Rows from `seq` on are gone before the next one that is there (deleted). */
  | { problem: "missing"; seq: number; nextSeq: number }
  /** The row's content no longer matches its hash (edited after it was written). */
  | { problem: "edited"; seq: number; row: ChainRow }
  /** The row's hash is its own, but it does not follow the row before it (rewritten with its hash, or inserted). */
  | { problem: "unlinked"; seq: number; row: ChainRow };

/**
 * Checks rows in `seq` order, one batch after another: give each batch with the state the last one left. The first
 * break is the answer; nothing after it is trusted.
 */
export class ChainVerifier {
  private previousHash = GENESIS_HASH;
  private expectedSeq = 1;
  rows = 0;
  broken: ChainBreak | null = null;

  check(batch: readonly ChainRow[]): void {
    for (const row of batch) {
      if (this.broken) return;
      if (row.seq !== this.expectedSeq) {
        this.broken = { problem: "missing", seq: this.expectedSeq, nextSeq: row.seq };
        return;
      }
      if (chainHash(row.prevHash, row) !== row.hash) {
        this.broken = { problem: "edited", seq: row.seq, row };
        return;
      }
      if (row.prevHash !== this.previousHash) {
        this.broken = { problem: "unlinked", seq: row.seq, row };
        return;
      }
      this.previousHash = row.hash;
      this.expectedSeq = row.seq + 1;
      this.rows += 1;
    }
  }

  /** The last row checked: the head the log should have seen, or one after it. */
  get head(): { seq: number; hash: string } | null {
    return this.rows === 0 ? null : { seq: this.expectedSeq - 1, hash: this.previousHash };
  }
}

/** A head the log recorded (`audit.chain_head`), compared with the trail as it is now. */
export type HeadCheck =
  | { ok: true }
  /** The trail ends before the logged head: its last rows were deleted. */
  | { ok: false; problem: "tail_missing"; loggedSeq: number; lastSeq: number }
  /** The row is there with another hash: the chain was rewritten from there or before. */
  | { ok: false; problem: "rewritten"; loggedSeq: number };

export function checkLoggedHead(
  logged: { seq: number; hash: string },
  found: { seq: number; hash: string } | undefined,
  lastSeq: number,
): HeadCheck {
  if (!found) return { ok: false, problem: "tail_missing", loggedSeq: logged.seq, lastSeq };
  return found.hash === logged.hash
    ? { ok: true }
    : { ok: false, problem: "rewritten", loggedSeq: logged.seq };
}
