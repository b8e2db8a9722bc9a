import { otherMethods } from "@/lib/api/methods";
import { authorizeApiRequest } from "@/lib/api/api-key";
import { readApiSale } from "@/lib/dal/api-sales";
import { errorResponse, noStoreJson } from "@/lib/http/json";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

/** One sale by its submissionId (`sales:read`); customer data only with `sales:read-customer`. */
export async function GET(request: Request, context: RouteContext<"/api/v1/sales/[submissionId]">) {
  const auth = await authorizeApiRequest(request, "sales:read", "api_reads");
  if (!auth.ok) return auth.response;
  const { submissionId } = await context.params;
  try {
    const sale = await readApiSale(auth.caller, submissionId);
    return sale ? noStoreJson(200, sale) : errorResponse("sale_not_found");
  } catch (error) {
    log.error("api.sales_read_failed", { error });
    return errorResponse("service_unavailable");
  }
}

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
