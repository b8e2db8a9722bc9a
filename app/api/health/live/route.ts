import { noStoreJson } from "@/lib/http/json";

export const dynamic = "force-dynamic";

/**
 * Liveness: the process answers. Nothing else is checked (not the database, not the provider), so an outage
 * elsewhere never gets a healthy instance restarted; readiness is /api/health.
 */
export function GET() {
  return noStoreJson(200, { status: "ok" });
}
