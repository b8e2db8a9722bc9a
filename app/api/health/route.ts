import { checkHealth } from "@/lib/health";
import { RETRY_AFTER_SECONDS } from "@/lib/errors";
import { noStoreJson } from "@/lib/http/json";

export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth();
  if (health.db === "ok") return noStoreJson(200, health);
  return noStoreJson(503, health, { "Retry-After": String(RETRY_AFTER_SECONDS) });
}
