import { SALE_STATUS } from "@/lib/api/sale-status";
import { limitedResponse } from "@/lib/http/limited";
import { sellAsSignedInAgent } from "@/lib/sales/sell";
import { errorResponse, noStoreJson } from "@/lib/http/json";
import { BODY_LIMITS, readJsonObject } from "@/lib/http/read-body";
import { crossSiteRefusal } from "@/lib/http/same-origin";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  const crossSite = await crossSiteRefusal(request);
  if (crossSite) return crossSite;
  const body = await readJsonObject(request, BODY_LIMITS.sale);
  if (!body.ok) return errorResponse(body.code);
  const sold = await sellAsSignedInAgent({
    channel: "api",
    submissionId: request.headers.get("idempotency-key"),
    fields: body.value,
  });
  if (!sold.ok && sold.code === "rate_limited") return limitedResponse(sold);
  if (!sold.ok) return errorResponse(sold.code, sold.fieldErrors);
  return noStoreJson(SALE_STATUS[sold.outcome], sold.result);
}
