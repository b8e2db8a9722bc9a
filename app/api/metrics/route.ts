import { hasMetricsToken } from "@/lib/auth/metrics-token";
import { getDb } from "@/lib/db";
import { countOpenSales } from "@/lib/db/queries/sales";
import { getConfig } from "@/lib/env";
import { apiSecurityHeaders, errorResponse } from "@/lib/http/json";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";

export const dynamic = "force-dynamic";

const DB_READ_TIMEOUT_MS = 2_000;

/** The gauges read from the ledger at each scrape; a database that does not answer leaves them as they were. */
async function readLedger(): Promise<void> {
  const { openSales, databaseUp } = metrics();
  try {
    const open = await Promise.race([
      getDb().then(countOpenSales),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("timeout")), DB_READ_TIMEOUT_MS).unref(),
      ),
    ]);
    openSales.set({ status: "pending" }, open.pending);
    openSales.set({ status: "unknown" }, open.unknown);
    databaseUp.set(1);
  } catch (error) {
    databaseUp.set(0);
    log.warn("metrics.ledger_unread", { error });
  }
}

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
  await readLedger();
  const { registry } = metrics();
  return new Response(await registry.metrics(), {
    headers: { "Content-Type": registry.contentType, "Cache-Control": "no-store", ...apiSecurityHeaders() },
  });
}
