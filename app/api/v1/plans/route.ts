import { otherMethods } from "@/lib/api/methods";
import { planCatalogue } from "@/lib/api/responses";
import { authorizeApiRequest } from "@/lib/api/api-key";
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
  return noStoreJson(200, planCatalogue(getConfig().plans));
}

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
