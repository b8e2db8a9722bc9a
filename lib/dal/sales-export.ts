import "server-only";
import { getDb } from "@/lib/db";
import { agentActor, recordAuditEvent } from "@/lib/db/queries/audit-events";
import { isoDateIn, STATUS_LABELS } from "@/lib/format";
import { log } from "@/lib/log";
import type { HistoryFilter } from "@/lib/sales/history-filter";
import { csvStream, SALES_CSV_HEADER } from "@/lib/sales/sales-csv";
import { appTimeZone } from "./sales";
import { visibleSalesCsv } from "./sales-history";
import type { SessionAgent } from "./session";

/** "vendas-a-confirmar-2026-04-03.csv": what it holds and the day it was taken, in the app's time zone. */
function exportFileName(filter: HistoryFilter, now: Date, timeZone: string): string {
  const status = filter.status
    ? `-${STATUS_LABELS[filter.status]
        .normalize("NFD")
        .replace(/\p{M}/gu, "")
        .toLowerCase()
        .replace(/\s+/g, "-")}`
    : "";
  return `vendas${status}-${isoDateIn(now, timeZone)}.csv`;
}

/**
 * The history under `filter` as a CSV stream (agents: their own sales; supervisors: everyone's), read from the
 * database a batch at a time as the client downloads it. One log line when it ends: counts, never customer data.
 */
export function exportVisibleSales(
  agent: SessionAgent,
  filter: HistoryFilter,
): { fileName: string; body: ReadableStream<Uint8Array> } {
  const timeZone = appTimeZone();
  const startedAt = Date.now();

  async function* lines(): AsyncGenerator<Uint8Array> {
    let rows = 0;
    let completed = false;
    try {
      for await (const batch of visibleSalesCsv(agent, filter)) {
        rows += batch.rows;
        yield batch.csv;
      }
      completed = true;
    } catch (error) {
      log.error("sales.export_failed", { agentId: agent.id, error });
      throw error;
    } finally {
      const scope = agent.role === "supervisor" ? "all" : "own";
      log.info("sales.exported", {
        agentId: agent.id,
        scope,
        status: filter.status ?? null,
        // Which filters, never their values: a search or an agent's id says whom the export was about.
        filters: Object.keys(filter).sort(),
        rows,
        completed,
        durationMs: Date.now() - startedAt,
      });
      // The trail keeps which filter took whose data out: every value but the search box (a CPF, a name).
      const { search, ...filterValues } = filter;
      await recordAuditEvent(await getDb(), {
        action: "history.exported",
        ...agentActor(agent),
        details: { scope, filter: { ...filterValues, search: search !== undefined }, rows, completed },
      }).catch((error) => log.error("audit.record_failed", { action: "history.exported", error }));
    }
  }

  return {
    fileName: exportFileName(filter, new Date(startedAt), timeZone),
    body: csvStream(SALES_CSV_HEADER, lines()),
  };
}
