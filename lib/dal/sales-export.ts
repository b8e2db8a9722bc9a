import "server-only";
import { getDb } from "@/lib/db";
import { agentActor, recordAuditEvent } from "@/lib/db/queries/audit-events";
import { isoDateIn, STATUS_LABELS } from "@/lib/format";
import { log } from "@/lib/log";
import type { HistoryFilter } from "@/lib/sales/history-filter";
import { csvStream, SALES_CSV_HEADER } from "@/lib/sales/sales-csv";
import { getConfig } from "@/lib/env";
import type { ExportSlot } from "./limits";
import { appTimeZone } from "./sales";
import { visibleSalesCsv } from "./sales-history";
import { liveSessionAgent, type SessionAgent } from "./session";

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

/** Why an export ended before its last row (the log's and the audit trail's `stopped`). */
type ExportStop = "row_limit" | "time_limit" | "session_ended";

class ExportStopped extends Error {
  override readonly name = "ExportStopped";
  constructor(readonly reason: ExportStop) {
    super(`The export was stopped: ${reason}.`);
  }
}

const BATCH_ROWS = 10_000;

/**
 * The history under `filter` as a CSV stream (agents: their own sales; supervisors: everyone's), read from the
 * database a batch at a time as the client downloads it. One log line when it ends: counts, never customer data.
 * Bounded (docs/production.md: "Limits"): past EXPORT_MAX_ROWS rows or EXPORT_MAX_SECONDS, or once its session has ended
 * (checked before each batch), the download fails rather than end as if complete; `slot` is given back however
 * it ends.
 */
export function exportVisibleSales(
  agent: SessionAgent,
  filter: HistoryFilter,
  slot: ExportSlot,
): { fileName: string; body: ReadableStream<Uint8Array> } {
  const timeZone = appTimeZone();
  const startedAt = Date.now();
  const { exportMaxRows, exportMaxMs } = getConfig().limits;
  const release = () =>
    slot.release().catch((error) => log.error("sales.export_release_failed", { agentId: agent.id, error }));
  // Set by whichever bound ended the export: a batch's checks below, or the stream's deadline (EXPORT_MAX_SECONDS,
  // which also stops a client that stopped reading).
  let stopped: ExportStop | null = null;

  async function stopReason(rows: number): Promise<ExportStop | null> {
    if (rows > exportMaxRows) return "row_limit";
    const live = await liveSessionAgent({ agentId: agent.id, sessionId: agent.sessionId });
    return live ? null : "session_ended";
  }

  async function* lines(): AsyncGenerator<Uint8Array> {
    let rows = 0;
    let completed = false;
    try {
      for await (const batch of visibleSalesCsv(agent, filter, Math.min(BATCH_ROWS, exportMaxRows + 1))) {
        const reason = await stopReason(rows + batch.rows);
        if (reason) throw new ExportStopped((stopped = reason));
        rows += batch.rows;
        yield batch.csv;
      }
      completed = true;
    } catch (error) {
      if (error instanceof ExportStopped)
        log.warn("sales.export_stopped", { agentId: agent.id, stopped, rows });
      else log.error("sales.export_failed", { agentId: agent.id, error });
      throw error;
    } finally {
      // Before the stream closes: a client that starts its next export at once finds the slot free.
      await release();
      const scope = agent.role === "supervisor" ? "all" : "own";
      log.info("sales.exported", {
        agentId: agent.id,
        scope,
        status: filter.status ?? null,
        // Which filters, never their values: a search or an agent's id says whom the export was about.
        filters: Object.keys(filter).sort(),
        rows,
        completed,
        ...(stopped ? { stopped } : {}),
        durationMs: Date.now() - startedAt,
      });
      // The trail keeps which filter took whose data out: every value but the search box (a CPF, a name).
      const { search, ...filterValues } = filter;
      await recordAuditEvent(await getDb(), {
        action: "history.exported",
        ...agentActor(agent),
        details: {
          scope,
          filter: { ...filterValues, search: search !== undefined },
          rows,
          completed,
          ...(stopped ? { stopped } : {}),
        },
      }).catch((error) => log.error("audit.record_failed", { action: "history.exported", error }));
    }
  }

  return {
    fileName: exportFileName(filter, new Date(startedAt), timeZone),
    body: csvStream(SALES_CSV_HEADER, lines(), {
      deadlineMs: exportMaxMs,
      onDeadline: () => (stopped ??= "time_limit"),
      onEnd: () => void release(),
    }),
  };
}
