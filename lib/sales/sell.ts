import "server-only";
import { findHeldSaleOf, findSaleRow, SaleNotPendingError } from "@/lib/db/queries/sales";
import type { Sale } from "@/lib/db/schema";
import type { RequestErrorCode } from "@/lib/errors";
import { log } from "@/lib/log";
import { observeSale, type SaleMetricOutcome } from "@/lib/metrics";
import { inSpan, noteOnSpan, SUBMISSION_ID } from "@/lib/tracing";
import {
  createSaleSchema,
  fieldErrorsOf,
  isUuid,
  SALE_FIELDS,
  type SaleField,
  type ValidSale,
} from "@/lib/validation/sale";
import { isHistory, saleResult, type SaleResult } from "@/lib/sales/sale-result";
import { findAgentByEmail, findAgentById } from "@/lib/db/queries/agents";
import { getDb } from "@/lib/db";
import { findSubmissionSellers } from "@/lib/db/queries/api-sales";
import type { AgentReference } from "@/lib/api/requests";
import { readsCustomer, type ApiCaller } from "@/lib/dal/api-caller";
import { spendLimit, verifySessionAndSpend } from "@/lib/dal/limits";
import { shownScriptOf } from "@/lib/dal/plans";
import { agentActor } from "@/lib/db/queries/audit-events";
import type { SaleEvidenceToRecord } from "@/lib/db/queries/sale-evidence";
import { buildEvidence, evidenceFieldErrors, readEvidenceFields } from "@/lib/sales/evidence";
import { EVIDENCE_MESSAGES, type EvidenceField } from "@/lib/validation/evidence";
import type { SessionAgent } from "@/lib/dal/session";
import { appTimeZone } from "@/lib/dal/sales";
import { getConfig } from "@/lib/env";
import { formatDateTime } from "@/lib/format";
import { provider } from "@/lib/provider";
import { formatProtocol } from "@/lib/sales/protocol";
import { submitSale, type Submission } from "@/lib/sales/submit-sale";

let built: { config: ReturnType<typeof getConfig>; schema: ReturnType<typeof createSaleSchema> } | undefined;

/** Built once per configuration: zod compiles a schema on its first parse, which costs more than the parse. */
export function saleSchema() {
  const config = getConfig();
  if (built?.config !== config) {
    built = { config, schema: createSaleSchema({ planIds: config.plans?.map((plan) => plan.id) ?? null }) };
  }
  return built.schema;
}

/**
 * Nothing was sent: the ledger already holds a sale of this plan for this CPF that the provider may have (accepted,
 * or still to be confirmed), so the form asks the agent to confirm before sending another.
 */
export interface KnownCustomer {
  status: "known_customer";
  /** The earlier sale: whether it was accepted or is still to be confirmed, its protocol and when it was made. */
  earlier: "accepted" | "unconfirmed";
  protocol: string;
  soldAt: string;
}

export async function knownCustomerSale(
  agent: SessionAgent,
  submissionId: string,
  sale: ValidSale,
): Promise<KnownCustomer | null> {
  const earlier = await findHeldSaleOf(await getDb(), {
    customerDocument: sale.customerDocument,
    planId: sale.planId,
    exceptSubmissionId: submissionId,
    ...(getConfig().limits.knownCustomerScope === "own" ? { agentId: agent.id } : {}),
  });
  return earlier
    ? {
        status: "known_customer",
        earlier: earlier.status === "accepted" ? "accepted" : "unconfirmed",
        protocol: formatProtocol(earlier.protocol),
        soldAt: formatDateTime(earlier.createdAt, appTimeZone(), "minutes"),
      }
    : null;
}

/**
 * A seller's submission: ledger, upstream, outcome. Callers have verified the door (session or API key) and the
 * input; the sale is the agent's, the integration's, or both (a key selling on an agent's behalf).
 */
export async function submitSaleAs(
  seller: { agentId: string | null; integrationId: string | null },
  submissionId: string,
  sale: ValidSale,
  evidence?: SaleEvidenceToRecord,
): Promise<Submission> {
  return submitSale(
    { db: await getDb(), provider: provider(), partnerSource: getConfig().provider.partnerSource },
    { ...seller, submissionId, sale, evidence },
  );
}

/**
 * How a sale request ended, in the use case's words: each door answers it its own way (the JSON routes' statuses
 * are lib/api/sale-status.ts; the form shows the result). `pending`: another request with this submission id waits
 * for the provider; `replayed`: the ledger held it already, and the result is the first request's.
 */
export type SellOutcome =
  Exclude<Sale["status"], "pending"> | "timed_out" | "pending" | "replayed" | "known_customer";

export type SellResult =
  | { ok: true; result: SaleResult; outcome: Exclude<SellOutcome, "known_customer"> }
  | { ok: true; result: KnownCustomer; outcome: "known_customer" }
  | {
      ok: false;
      code: Exclude<RequestErrorCode, "rate_limited">;
      fieldErrors?: Partial<Record<SaleField | EvidenceField, string>>;
    }
  /** Past a limit (lib/dal/limits.ts): nothing was checked, recorded or sent. */
  | { ok: false; code: "rate_limited"; retryAfterSeconds: number; fieldErrors?: undefined };

/** Where a sale comes from decides only the words for a missing or foreign submission id. */
export type SaleChannel = "form" | "api" | "api-v1";

interface SaleInput {
  channel: SaleChannel;
  submissionId: unknown;
  fields: Record<string, unknown>;
  /**
   * The agent saw that this customer already bought this plan here and sends anyway. The form asks first; the
   * JSON API does not (programs decide for themselves; the provider refuses a real duplicate with a 409).
   */
  knownCustomerConfirmed?: boolean;
}

/**
 * The signed-in sale steps, once for the form's server action and for `POST /api/sales`: session, submission id,
 * validation, the ledger and the provider, the log and the metrics. Callers only translate the result into their
 * own answer.
 */
export function sellAsSignedInAgent(input: SaleInput): Promise<SellResult> {
  return observedSale(input.channel, () => sell(input));
}

/** A sale's span and metrics, whichever door it came through. */
function observedSale(channel: SaleChannel, work: () => Promise<SellResult>): Promise<SellResult> {
  const started = performance.now();
  return inSpan("sale.submit", { "partner_sales.channel": channel }, async () => {
    const result = await work();
    const outcome = metricOutcomeOf(result);
    noteOnSpan({ "partner_sales.outcome": outcome });
    observeSale(outcome, (performance.now() - started) / 1000);
    return result;
  });
}

function metricOutcomeOf(result: SellResult): SaleMetricOutcome {
  if (!result.ok) {
    if (result.code === "invalid_fields") return "invalid";
    if (result.code === "rate_limited") return "limited";
    return result.code === "service_unavailable" ? "unavailable" : "refused";
  }
  // A sale whose answer timed out is an unknown one to the metrics, as to the ledger.
  return result.outcome === "timed_out" ? "unknown" : result.outcome;
}

async function sell(input: SaleInput): Promise<SellResult> {
  // The session check and the sale's limit are one round trip.
  let checked;
  try {
    checked = await inSpan("sale.session", {}, () => verifySessionAndSpend("sales"));
  } catch (error) {
    log.error("sales.session_check_failed", { error });
    return { ok: false, code: "service_unavailable" };
  }
  if (!checked) return { ok: false, code: "unauthorized" };
  const { agent, limited } = checked;
  if (!limited.ok) return { ok: false, code: "rate_limited", retryAfterSeconds: limited.retryAfterSeconds };
  return recordAndSend(input, { agent, integrationId: null });
}

/** Who a sale is recorded for: an agent, an integration (its key), or both (a key selling on an agent's behalf). */
interface Seller {
  agent: SessionAgent | { id: string } | null;
  integrationId: string | null;
}

/** The steps after the door: submission id, validation, the known-customer check (the form's), ledger, provider. */
async function recordAndSend(input: SaleInput, seller: Seller): Promise<SellResult> {
  const { channel } = input;
  const { submissionId } = input;
  if (!isUuid(submissionId)) {
    return { ok: false, code: channel === "form" ? "stale_form" : "idempotency_key_required" };
  }
  noteOnSpan({ [SUBMISSION_ID]: submissionId });
  // A missing field reads as empty, so it gets the same message as an empty form field.
  const parsed = await inSpan("sale.validate", {}, async () => {
    const result = saleSchema().safeParse(
      Object.fromEntries(SALE_FIELDS.map((field) => [field, input.fields[field] ?? ""])),
    );
    noteOnSpan({ "partner_sales.valid": result.success });
    return result;
  });
  if (!parsed.success) return { ok: false, code: "invalid_fields", fieldErrors: fieldErrorsOf(parsed.error) };

  const { agent } = seller;
  // A plan with an offer script sells only with its evidence (lib/sales/evidence.ts): from an agent's session, the
  // form's fields or the same four in the JSON body; an integration's key alone has no agent who read the script
  // to a customer, and is refused.
  const script = shownScriptOf(parsed.data.planId);
  let evidence: SaleEvidenceToRecord | undefined;
  if (script) {
    if (!agent || !("sessionId" in agent)) {
      return {
        ok: false,
        code: "invalid_fields",
        fieldErrors: { confirmations: EVIDENCE_MESSAGES.scriptedPlanInSession },
      };
    }
    const fields = readEvidenceFields(input.fields);
    const built =
      fields === "malformed"
        ? ({ ok: false, problem: { code: "confirmations_invalid" } } as const)
        : buildEvidence(script, fields, { submissionId, agentId: agent.id, door: agent.door }, new Date());
    if (!built.ok) {
      // The same submission again, already sent: its outcome is the ledger's, whatever the ticks or the
      // catalogue say now (a tick older than a call, a script changed since).
      const replay = await sentBefore(submissionId, seller);
      if (replay === "unavailable") return { ok: false, code: "service_unavailable" };
      if (replay) return { ok: true, result: saleResult(replay, true), outcome: outcomeOf(replay, true) };
      const fieldErrors = evidenceFieldErrors(built.problem);
      return fieldErrors
        ? { ok: false, code: "invalid_fields", fieldErrors }
        : { ok: false, code: "script_changed" };
    }
    evidence = { record: built.record, recordingId: built.recordingId, actor: agentActor(agent) };
  }
  if (channel === "form" && !input.knownCustomerConfirmed && agent && "sessionId" in agent) {
    // Each check tells whether a CPF bought a plan here: counted per agent, so nobody can sweep a list of CPFs.
    const checks = await spendOrRefuse("known_customer", agent);
    if (checks) return checks;
    let known;
    try {
      known = await inSpan("sale.known_customer", {}, () =>
        knownCustomerSale(agent, submissionId, parsed.data),
      );
    } catch (error) {
      log.error("sales.known_customer_check_failed", { submissionId, error });
      return { ok: false, code: "service_unavailable" };
    }
    if (known) {
      // Who asked, too: the lookup reads every agent's sales and leaves no ledger row.
      log.info("sales.known_customer", { submissionId, agentId: agent.id, earlier: known.earlier });
      return { ok: true, result: known, outcome: "known_customer" };
    }
  }

  let submission;
  try {
    submission = await submitSaleAs(
      { agentId: agent?.id ?? null, integrationId: seller.integrationId },
      submissionId,
      parsed.data,
      evidence,
    );
  } catch (error) {
    log.error("sales.submit_failed", { submissionId, channel, error });
    // The ledger's first write failed, before anything was sent; or the row was settled meanwhile, and what
    // happened is then for the ledger to say. Either way the same submissionId may come again, never twice.
    return {
      ok: false,
      code: error instanceof SaleNotPendingError ? "not_confirmed" : "service_unavailable",
    };
  }
  if (submission.kind === "not-yours") {
    return { ok: false, code: channel === "form" ? "stale_form" : "idempotency_key_in_use" };
  }
  // A failed scripted sale sent again with another plan, other ticks or none: its record tells another sale.
  if (submission.kind === "evidence-changed") return { ok: false, code: "script_changed" };
  const { sale, replay } = submission;
  return { ok: true, result: saleResult(sale, replay), outcome: outcomeOf(sale, replay) };
}

/**
 * The seller's own sale under `submissionId` as the ledger has it, if it went out (or is on its way): any status
 * but `failed`, which would be sent again and so needs this attempt's evidence; or a failed one that is history
 * (erased, or its customer asked for erasure), which is never sent again (claimSubmission).
 */
async function sentBefore(submissionId: string, seller: Seller): Promise<Sale | null | "unavailable"> {
  try {
    const sale = await findSaleRow(await getDb(), submissionId);
    if (!sale || (sale.status === "failed" && !isHistory(sale))) return null;
    const mine = sale.agentId === (seller.agent?.id ?? null) && sale.integrationId === seller.integrationId;
    if (mine) log.info("sales.replay", { submissionId, status: sale.status });
    return mine ? sale : null;
  } catch (error) {
    log.error("sales.replay_lookup_failed", { submissionId, error });
    return "unavailable";
  }
}

/**
 * A sale through /api/v1 by an integration whose key the route has checked (lib/api/api-key.ts: scope
 * `sales:write`, the integration's budget spent). With `agent` (the key needs `sales:on-behalf`, checked here too)
 * the sale is also that active agent's; an unknown or disabled one is refused before anything is recorded.
 */
export function sellAsIntegration(
  caller: ApiCaller,
  input: { submissionId: unknown; fields: Record<string, unknown>; agent: AgentReference | undefined },
): Promise<SellResult> {
  return observedSale("api-v1", () => sellForIntegration(caller, input));
}

/**
 * Whether the ledger holds `submissionId` as this integration's sale on this agent's behalf, with an outcome to
 * answer: a `failed` one would be sent again, which a disabled agent's may not.
 */
async function recordedFor(
  submissionId: unknown,
  { agentId, caller }: { agentId: string; caller: ApiCaller },
): Promise<boolean> {
  if (!isUuid(submissionId)) return false;
  const sellers = await findSubmissionSellers(await getDb(), submissionId);
  return (
    sellers?.agentId === agentId &&
    sellers.integrationId === caller.integrationId &&
    sellers.status !== "failed"
  );
}

async function sellForIntegration(
  caller: ApiCaller,
  input: { submissionId: unknown; fields: Record<string, unknown>; agent: AgentReference | undefined },
): Promise<SellResult> {
  let agent: { id: string } | null = null;
  if (input.agent) {
    if (!caller.scopes.has("sales:on-behalf")) return { ok: false, code: "insufficient_scope" };
    let found;
    let recorded = false;
    try {
      const db = await getDb();
      found =
        "id" in input.agent
          ? await findAgentById(db, input.agent.id)
          : await findAgentByEmail(db, input.agent.email);
      if (found?.disabledAt) recorded = await recordedFor(input.submissionId, { agentId: found.id, caller });
    } catch (error) {
      log.error("sales.agent_lookup_failed", { error });
      return { ok: false, code: "service_unavailable" };
    }
    if (!found) return { ok: false, code: "agent_unknown" };
    // A disabled agent sells nothing new; a sale already recorded for them is answered from the ledger, as any
    // replay, so a partner retrying after a lost answer still learns its outcome.
    if (found.disabledAt && !recorded) return { ok: false, code: "agent_disabled" };
    agent = { id: found.id };
  }
  const result = await recordAndSend(
    { channel: "api-v1", submissionId: input.submissionId, fields: input.fields },
    { agent, integrationId: caller.integrationId },
  );
  if (!result.ok || result.outcome === "known_customer") return result;
  // The door and the key in the log, as a session's sales carry the agent: who sold what through which key.
  log.info("api.sale", {
    door: caller.door,
    keyPrefix: caller.prefix,
    agentId: agent?.id,
    submissionId: result.result.submissionId,
    status: result.result.status,
    replay: result.result.replay,
  });
  // The provider's words may repeat the customer's data: only for a key that may read it, as in the reads.
  return readsCustomer(caller) ? result : { ...result, result: { ...result.result, upstreamMessage: null } };
}

/** Spends from `agent`'s budget for `limit`: null to go on, or the refusal to answer. */
async function spendOrRefuse(limit: "known_customer", agent: SessionAgent): Promise<SellResult | null> {
  try {
    const spent = await spendLimit(limit, agent);
    return spent.ok ? null : { ok: false, code: "rate_limited", retryAfterSeconds: spent.retryAfterSeconds };
  } catch (error) {
    log.error("sales.limit_check_failed", { limit, error });
    return { ok: false, code: "service_unavailable" };
  }
}

/** The outcome of a request that reached the ledger: its row's status, unless the row was there before. */
function outcomeOf(
  sale: Pick<Sale, "status" | "outcomeDetail">,
  replay: boolean,
): Exclude<SellOutcome, "known_customer"> {
  if (sale.status === "pending") return "pending";
  if (replay) return "replayed";
  return sale.status === "unknown" && sale.outcomeDetail === "timeout" ? "timed_out" : sale.status;
}
