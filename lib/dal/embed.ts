import "server-only";
import { tokenNamesSessionAgent } from "@/lib/auth/portal-token";
import { getDb } from "@/lib/db";
import { getConfig } from "@/lib/env";
import type { PrefillValues } from "@/lib/validation/prefill";
import { verifySession } from "./session";

/** What the embedded page needs to know: which portals it may talk to. No secret. */
export function embedSettings(): { allowedOrigins: string[] } {
  return { allowedOrigins: [...getConfig().embed.allowedOrigins] };
}

/**
 * For a token refused as replayed or expired: this request's live session, when it is the agent the token names
 * (lib/auth/portal-token.ts, tokenNamesSessionAgent, says why that is safe). Null otherwise.
 */
export async function sessionNamedByToken(
  token: string,
): Promise<{ agentId: string; prefill: PrefillValues } | null> {
  const agent = await verifySession();
  if (!agent) return null;
  const match = await tokenNamesSessionAgent(await getDb(), token, getConfig().embed.portals, agent.id);
  return match && { agentId: agent.id, prefill: match.prefill };
}
