import { SALE_STATUS } from "@/lib/api/sale-status";
import { otherMethods } from "@/lib/api/methods";
import { agentReferenceSchema, listSalesQuerySchema, type AgentReference } from "@/lib/api/requests";
import { authorizeApiRequest, requireScope } from "@/lib/api/api-key";
import { listApiSales } from "@/lib/dal/api-sales";
import { limitedResponse } from "@/lib/http/limited";
import { sellAsIntegration } from "@/lib/sales/sell";
import { errorResponse, noStoreJson } from "@/lib/http/json";
import { BODY_LIMITS, readJsonObject } from "@/lib/http/read-body";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

/**
 * A sale by an integration's key (`sales:write`): the body, validation, ledger, Idempotency-Key and answers of
 * the session route POST /api/sales, the sale recorded as the integration's, and also as the agent's that `agent`
 * names (`sales:on-behalf`).
 */
export async function POST(request: Request) {
  const auth = await authorizeApiRequest(request, "sales:write", "sales");
  if (!auth.ok) return auth.response;
  const body = await readJsonObject(request, BODY_LIMITS.sale);
  if (!body.ok) return errorResponse(body.code);
  const { agent, ...fields } = body.value;
  let onBehalfOf: AgentReference | undefined;
  if (agent !== undefined) {
    const refused = await requireScope(auth.caller, "sales:on-behalf");
    if (refused) return refused;
    const named = agentReferenceSchema.safeParse(agent);
    if (!named.success) {
      return errorResponse("invalid_fields", {
        agent: 'Indique o agente por id ou por e-mail: {"id": "…"} ou {"email": "…"}.',
      });
    }
    onBehalfOf = named.data;
  }
  const sold = await sellAsIntegration(auth.caller, {
    submissionId: request.headers.get("idempotency-key"),
    fields,
    agent: onBehalfOf,
  });
  if (!sold.ok && sold.code === "rate_limited") return limitedResponse(sold);
  if (!sold.ok) return errorResponse(sold.code, sold.fieldErrors);
  const answer = noStoreJson(SALE_STATUS[sold.outcome], sold.result);
  if (sold.result.status !== "known_customer") {
    answer.headers.set("Location", `/api/v1/sales/${sold.result.submissionId}`);
  }
  return answer;
}

/** Sales by protocol, externalId, status and period, newest first; or the changes feed (`updatedAfter`). */
export async function GET(request: Request) {
  const auth = await authorizeApiRequest(request, "sales:read", "api_reads");
  if (!auth.ok) return auth.response;
  const parameters = new URL(request.url).searchParams;
  const repeated = [...new Set(parameters.keys())].find((name) => parameters.getAll(name).length > 1);
  if (repeated) return errorResponse("invalid_query", { [repeated]: "Parâmetro repetido: envie-o uma vez." });
  const query = listSalesQuerySchema.safeParse(Object.fromEntries(parameters));
  if (!query.success) {
    const fieldErrors: Record<string, string> = {};
    for (const issue of query.error.issues) {
      if (issue.code === "unrecognized_keys") {
        for (const name of issue.keys) fieldErrors[name] ??= "Parâmetro desconhecido.";
      } else if (typeof issue.path[0] === "string") {
        fieldErrors[issue.path[0]] ??= issue.message;
      }
    }
    return errorResponse("invalid_query", fieldErrors);
  }
  try {
    const page = await listApiSales(auth.caller, query.data);
    if (!page.ok) return errorResponse("invalid_query", page.fieldErrors);
    return noStoreJson(200, { sales: page.sales, nextCursor: page.nextCursor });
  } catch (error) {
    log.error("api.sales_read_failed", { error });
    return errorResponse("service_unavailable");
  }
}

export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
