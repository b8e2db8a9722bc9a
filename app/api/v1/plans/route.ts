import { authorizeApiRequest } from "@/lib/dal/api-key";
import { getConfig } from "@/lib/env";
import { noStoreJson } from "@/lib/http/json";

export const dynamic = "force-dynamic";

/**
 * The plan catalogue (PLANS_FILE) as a program reads it: what a sale's `planId` may be. Without a catalogue the
 * provider alone knows its plans, and the list is empty (`catalogue: "none"`).
 */
export async function GET(request: Request) {
  const auth = await authorizeApiRequest(request, "plans:read", "api_reads");
  if (!auth.ok) return auth.response;
  const plans = getConfig().plans;
  return noStoreJson(200, {
    catalogue: plans ? "configured" : "none",
    plans: (plans ?? []).map((plan) => ({
      id: plan.id,
      name: plan.name,
      description: plan.description,
      price: plan.price ?? null,
    })),
  });
}
