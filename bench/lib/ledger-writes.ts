import { randomUUID } from "node:crypto";
import { newProtocol } from "../../lib/sales/protocol";
import { customer, pick, seededRandom } from "./ledger-customers";

/** A real sale's outcome as the app recorded it (lib/db/queries/sales.ts, recordOutcome), copied onto others. */
export interface OutcomeTemplate {
  status: string;
  request: Record<string, string>;
  upstreamStatus: number | null;
  upstreamMessage: string | null;
  outcomeDetail: string | null;
  rejectedFields: string[] | null;
}

export interface PlannedSale {
  submissionId: string;
  protocol: string;
  agentId: string;
  request: Record<string, string>;
  createdAt: Date;
  outcome: OutcomeTemplate;
  completedAt: Date;
  /** An `unknown` sale older than a month: a supervisor has settled it since (settleUnknownSale). */
  settlement?: { status: "accepted" | "failed"; resolution: string; settledAt: Date };
}

// The app's statements, step by step (lib/db/queries/sales.ts: claimSubmission, recordOutcome, settleUnknownSale),
// with the times given: the app's now() would put a year and a half of sales on today. Their RETURNING is left
// out: it changes nothing stored, and its rows would only be shipped back.
export const PREPARE_STATEMENTS = `
PREPARE bench_claim (uuid, text, uuid, jsonb, timestamptz) AS
  INSERT INTO sales (submission_id, protocol, agent_id, request, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $5)
  ON CONFLICT (submission_id) DO NOTHING;
PREPARE bench_outcome (uuid, sale_status, integer, text, text, jsonb, timestamptz) AS
  UPDATE sales SET status = $2, upstream_status = $3, upstream_message = $4, outcome_detail = $5,
    rejected_fields = $6, updated_at = $7, completed_at = $7
  WHERE submission_id = $1
    AND (status = 'pending' OR (status = 'unknown' AND outcome_detail = 'interrupted'));
PREPARE bench_settle (uuid, sale_status, sale_resolution, uuid, timestamptz) AS
  UPDATE sales SET status = $2, resolution = $3, resolved_by = $4, resolved_at = $5, updated_at = $5
  WHERE submission_id = $1 AND status = 'unknown';
PREPARE bench_audit (audit_action, text, uuid, text, text, jsonb) AS
  INSERT INTO audit_events (action, actor, agent_id, door, protocol, details, seq, prev_hash, hash)
  VALUES ($1, $2, $3, $4, $5, $6, 0, '', '');`;

/** A SQL literal (standard_conforming_strings, PostgreSQL's default since 9.1: only quotes are doubled). */
export function literal(value: string | number | Date | null | undefined | object): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") return String(value);
  const text =
    value instanceof Date ? value.toISOString() : typeof value === "string" ? value : JSON.stringify(value);
  return `'${text.replace(/'/g, "''")}'`;
}

const call = (statement: string, values: Parameters<typeof literal>[0][]) =>
  `EXECUTE ${statement}(${values.map(literal).join(", ")})`;

/** One transaction: committed on its own, as each of the app's statements is. */
const transaction = (...statements: string[]) => `BEGIN; ${statements.join("; ")}; COMMIT;`;

/**
 * The sale's transactions as the app runs them, and how many rows they must change: the `pending` row, its
 * outcome, and for a settled sale the supervisor's settlement with its audit event (one transaction).
 */
export function saleTransactions(
  sale: PlannedSale,
  supervisorId: string,
): { sql: string; rows: number; transactions: number } {
  const { outcome } = sale;
  const steps = [
    transaction(
      call("bench_claim", [sale.submissionId, sale.protocol, sale.agentId, sale.request, sale.createdAt]),
    ),
    transaction(
      call("bench_outcome", [
        sale.submissionId,
        outcome.status,
        outcome.upstreamStatus,
        outcome.upstreamMessage,
        outcome.outcomeDetail,
        outcome.rejectedFields,
        sale.completedAt,
      ]),
    ),
  ];
  const { settlement } = sale;
  if (settlement) {
    steps.push(
      transaction(
        call("bench_settle", [
          sale.submissionId,
          settlement.status,
          settlement.resolution,
          supervisorId,
          settlement.settledAt,
        ]),
        call("bench_audit", [
          "sale.settled",
          `agent:${supervisorId}`,
          supervisorId,
          "password",
          sale.protocol,
          { resolution: settlement.resolution },
        ]),
      ),
    );
  }
  return { sql: steps.join("\n"), rows: settlement ? 4 : 2, transactions: steps.length };
}

const DAY_MS = 86_400_000;

/**
 * `count` sales spread evenly over the `days` before `end`, oldest first (the order the app writes them), each
 * with a customer of its own, one of `agentIds`, and the outcome of one of the real sales (`templates`), drawn at
 * random: the real sales' mix of outcomes is the ledger's. Unknown outcomes older than a month have been settled.
 */
export function* plannedSales({
  count,
  templates,
  agentIds,
  takenProtocols,
  end,
  days,
}: {
  count: number;
  templates: readonly OutcomeTemplate[];
  agentIds: readonly string[];
  takenProtocols: Iterable<string>;
  end: Date;
  days: number;
}): Generator<PlannedSale & { index: number }> {
  const random = seededRandom(count);
  const protocols = new Set(takenProtocols);
  const spanMs = days * DAY_MS;
  const settledBefore = end.getTime() - 30 * DAY_MS;
  for (let index = 0; index < count; index++) {
    const createdAt = new Date(end.getTime() - spanMs + ((index + random()) * spanMs) / count);
    const outcome = pick(templates, random);
    let protocol = newProtocol();
    // One draw in 3.5·10¹³: the app's unique index refuses a repeat and the app draws again; here, before.
    while (protocols.has(protocol)) protocol = newProtocol();
    protocols.add(protocol);
    const { customerDocument, customerEmail, customerPhone, customerName, externalId, birthDate } = customer(
      templates.length + index,
      random,
    );
    const settled = outcome.status === "unknown" && createdAt.getTime() < settledBefore;
    const registered = random() < 0.75;
    yield {
      index,
      submissionId: randomUUID(),
      protocol,
      agentId: pick(agentIds, random),
      // The fields the real sale sent, in the order the app builds them (buildSaleBody), with this customer's data.
      request: {
        ...outcome.request,
        customerDocument,
        customerEmail,
        customerPhone,
        customerName,
        ...("externalId" in outcome.request ? { externalId } : {}),
        ...("birthDate" in outcome.request ? { birthDate } : {}),
      },
      createdAt,
      outcome,
      completedAt: new Date(createdAt.getTime() + 300 + random() * 2_700),
      settlement: settled
        ? {
            status: registered ? "accepted" : "failed",
            resolution: registered ? "registered" : "not-registered",
            settledAt: new Date(createdAt.getTime() + DAY_MS * (1 + random() * 2)),
          }
        : undefined,
    };
  }
}
