import { checkHealth } from "@/lib/health";
import { noStoreJson } from "@/lib/http/json";

export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth();
  return noStoreJson(health.db === "ok" ? 200 : 503, health);
}
