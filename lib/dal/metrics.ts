import "server-only";
import { getDb } from "@/lib/db";
import { countOpenSales } from "@/lib/db/queries/sales";
import { withinCheckTimeout } from "@/lib/health";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";

/** The gauges read from the ledger at each scrape; a database that does not answer leaves them as they were. */
async function readLedger(): Promise<void> {
  const { openSales, databaseUp } = metrics();
  try {
    const open = await withinCheckTimeout(getDb().then(countOpenSales));
    openSales.set({ status: "pending" }, open.pending);
    openSales.set({ status: "unknown" }, open.unknown);
    databaseUp.set(1);
  } catch (error) {
    databaseUp.set(0);
    log.warn("metrics.ledger_unread", { error });
  }
}

/** Every metric in Prometheus's text format, the ledger's gauges read now. */
export async function metricsExposition(): Promise<{ contentType: string; text: string }> {
  await readLedger();
  const { registry } = metrics();
  return { contentType: registry.contentType, text: await registry.metrics() };
}
