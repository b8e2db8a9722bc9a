import type { NextRequest } from "next/server";
import { exportVisibleSales } from "@/lib/dal/sales-export";
import { requireAgent } from "@/lib/dal/session";
import { historyQuery, parseHistoryFilter } from "@/lib/sales/history-filter";

export const dynamic = "force-dynamic";

/** The history's current filter as a CSV download; signed out, the sign-in page brings the person back here. */
export async function GET(request: NextRequest) {
  const filter = parseHistoryFilter(request.nextUrl.searchParams);
  const agent = await requireAgent(`/sales/export${historyQuery(filter)}`);
  const { fileName, body } = exportVisibleSales(agent, filter);
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${fileName}"`,
      "Cache-Control": "no-store",
    },
  });
}
