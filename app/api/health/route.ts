import { hasMetricsToken } from "@/lib/auth/metrics-token";
import { verifySession } from "@/lib/dal/session";
import { checkHealth } from "@/lib/health";
import { RETRY_AFTER_SECONDS } from "@/lib/errors";
import { noStoreJson } from "@/lib/http/json";

export const dynamic = "force-dynamic";

/**
 * Readiness for load balancers and uptime checks: `ok` (200) or `unavailable` (503), nothing else. The details
 * (database, upstream mode, token state, last exchange error) are for operators: `METRICS_TOKEN` as a bearer
 * token, or a signed-in supervisor.
 */
export async function GET(request: Request) {
  const health = await checkHealth();
  const ready = health.db === "ok";
  const headers: Record<string, string> = ready ? {} : { "Retry-After": String(RETRY_AFTER_SECONDS) };
  const details =
    hasMetricsToken(request.headers) || (ready && (await verifySession())?.role === "supervisor");
  return noStoreJson(ready ? 200 : 503, details ? health : { status: ready ? "ok" : "unavailable" }, headers);
}
