import { inFlightResult, isSubmissionId, saleSchema, submitSaleAsAgent } from "@/lib/dal/sales";
import { verifySession } from "@/lib/dal/session";
import { noStoreJson } from "@/lib/http/json";
import { isCrossSite } from "@/lib/http/same-origin";
import { log } from "@/lib/log";
import { fieldErrorsOf, SALE_FIELDS } from "@/lib/validation/sale";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  const agent = await verifySession();
  if (!agent)
    return noStoreJson(401, {
      error: "unauthorized",
      message: "Sign in first: this endpoint needs a session.",
    });
  if (isCrossSite(request))
    return noStoreJson(403, { error: "cross_site", message: "Cross-site requests are refused." });

  const submissionId = request.headers.get("idempotency-key");
  if (!isSubmissionId(submissionId)) {
    return noStoreJson(400, {
      error: "idempotency_key_required",
      message: "Send an Idempotency-Key header with a UUID that identifies this sale.",
    });
  }
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return noStoreJson(400, { error: "invalid_json", message: "The body must be a JSON object." });
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    return noStoreJson(400, { error: "invalid_json", message: "The body must be a JSON object." });
  }
  // A missing field reads as empty, so it gets the same message as an empty form field.
  const fields = body as Record<string, unknown>;
  const parsed = saleSchema().safeParse(
    Object.fromEntries(SALE_FIELDS.map((field) => [field, fields[field] ?? ""])),
  );
  if (!parsed.success) {
    return noStoreJson(400, { error: "invalid_fields", fieldErrors: fieldErrorsOf(parsed.error) });
  }

  let submission;
  try {
    submission = await submitSaleAsAgent(agent, submissionId, parsed.data);
  } catch (error) {
    log.error("sales.api_failed", { submissionId, error });
    return noStoreJson(503, {
      error: "not_confirmed",
      message:
        "The outcome could not be confirmed. Send again with the same Idempotency-Key: it is never sent twice.",
    });
  }
  if (submission.kind === "not-yours") {
    return noStoreJson(409, {
      error: "idempotency_key_in_use",
      message: "This Idempotency-Key belongs to another sale.",
    });
  }
  if (submission.kind === "in-flight") return noStoreJson(409, { ...inFlightResult(submissionId) });

  const { result, outcome, unknownReason } = submission;
  const status = result.replay
    ? 200
    : {
        accepted: 201,
        rejected: 422,
        failed: 502,
        pending: 409,
        unknown: unknownReason === "timeout" ? 504 : 502,
      }[outcome];
  return noStoreJson(status, { ...result });
}
