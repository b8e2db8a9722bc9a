import { hasMetricsToken } from "@/lib/auth/metrics-token";
import { verifySession } from "@/lib/dal/session";
import { checkHealth } from "@/lib/health";
import { noStoreJson } from "@/lib/http/json";
import { isDraining, isStarting } from "@/lib/lifecycle";

export const dynamic = "force-dynamic";

/**
 * Readiness for load balancers and uptime checks: `ok` (200), or 503 with `starting` (the database is opening or
 * recovering: wait), `unavailable` (the database does not answer) or `draining` (SIGTERM: requests in flight are
 * finishing, send new ones elsewhere). The details (database, upstream mode, token state, last exchange error)
 * are for operators: `METRICS_TOKEN` as a bearer token, or a signed-in supervisor. Liveness is /api/health/live.
 */
export async function GET(request: Request) {
  if (isDraining()) return noStoreJson(503, { status: "draining" });
  if (isStarting()) return noStoreJson(503, { status: "starting" });
  const health = await checkHealth();
  const ready = health.db === "ok";
  const details =
    hasMetricsToken(request.headers) || (ready && (await verifySession())?.role === "supervisor");
  return noStoreJson(ready ? 200 : 503, details ? health : { status: ready ? "ok" : "unavailable" });
}
