import type { NextRequest } from "next/server";
import { takeExportSlot } from "@/lib/dal/limits";
import { limitedResponse } from "@/lib/http/limited";
import { exportVisibleSales } from "@/lib/dal/sales-export";
import { requireAgent } from "@/lib/dal/session";
import { errorResponse } from "@/lib/http/json";
import { log } from "@/lib/log";
import { historyQuery, parseHistoryView } from "@/lib/sales/history-filter";

export const dynamic = "force-dynamic";

/**
 * The history's current filter (the same parameters, read by the same rules as `/sales`) as a CSV download; signed
 * out, the sign-in page brings the person back here. A parameter the history would set aside is refused here
 * (`invalid_fields`): a file must hold exactly what was asked for, or nothing. One export per person at a time,
 * bounded in rows and time, and stopped when its session ends (lib/dal/limits.ts, lib/dal/sales-export.ts).
 */
/** A HEAD would take a slot for a body nobody reads: the file is only had by GET. */
export function HEAD() {
  return new Response(null, { status: 405, headers: { Allow: "GET", "Cache-Control": "no-store" } });
}

export async function GET(request: NextRequest) {
  const { filter, problems } = parseHistoryView(request.nextUrl.searchParams);
  const agent = await requireAgent(`/sales/export${historyQuery({ filter })}`);
  if (Object.keys(problems).length > 0) return errorResponse("invalid_fields", problems);
  let slot;
  try {
    slot = await takeExportSlot(agent);
  } catch (error) {
    log.error("sales.export_slot_failed", { agentId: agent.id, error });
    return errorResponse("service_unavailable");
  }
  if (!slot.ok) return limitedResponse(slot);
  // A client gone before the first byte is never pulled nor cancelled: its slot goes back when the request ends.
  request.signal.addEventListener("abort", () => void slot.slot.release().catch(() => undefined), {
    once: true,
  });
  const { fileName, body } = exportVisibleSales(agent, filter, slot.slot);
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${fileName}"`,
      "Cache-Control": "no-store",
    },
  });
}
