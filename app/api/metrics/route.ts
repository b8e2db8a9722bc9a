import { hasMetricsToken } from "@/lib/auth/metrics-token";
import { metricsExposition } from "@/lib/dal/metrics";
import { getConfig } from "@/lib/env";
import { apiSecurityHeaders, errorResponse } from "@/lib/http/json";

export const dynamic = "force-dynamic";

/**
 * Prometheus metrics (text exposition format) for whoever holds METRICS_TOKEN as a bearer token; 404 while the
 * token is unset. Nothing here names a customer, an agent or a sale (lib/metrics.ts).
 */
export async function GET(request: Request) {
  if (!getConfig().metricsToken) return errorResponse("metrics_off");
  if (!hasMetricsToken(request.headers)) {
    const refused = errorResponse("metrics_token_required");
    refused.headers.set("WWW-Authenticate", 'Bearer realm="metrics"');
    return refused;
  }
  const { contentType, text } = await metricsExposition();
  return new Response(text, {
    headers: { "Content-Type": contentType, "Cache-Control": "no-store", ...apiSecurityHeaders() },
  });
}
