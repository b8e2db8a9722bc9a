import { exportDisputePack } from "@/lib/dal/sale-evidence";
import { requireAgent } from "@/lib/dal/session";
import { errorResponse } from "@/lib/http/json";
import { log } from "@/lib/log";

export const dynamic = "force-dynamic";

/**
 * A scripted sale's dispute pack (docs/selling.md: "The evidence of a sale"), for supervisors; anyone else, an unknown sale or
 * one without evidence: 404. Each download is on the audit trail (sale.dispute_pack_exported) before it is given.
 */
export async function GET(_request: Request, { params }: RouteContext<"/sales/[id]/dispute-pack">) {
  const { id } = await params;
  const agent = await requireAgent(`/sales/${id}`);
  let pack;
  try {
    pack = await exportDisputePack(agent, id);
  } catch (error) {
    log.error("sales.dispute_pack_failed", { submissionId: id, agentId: agent.id, error });
    return errorResponse("service_unavailable");
  }
  if (!pack) return errorResponse("sale_not_found");
  return new Response(pack.body, {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="${pack.fileName}"`,
      "Cache-Control": "no-store",
    },
  });
}
