import "server-only";
import { getConfig } from "@/lib/env";

/** What the embedded page needs to know: which portals it may talk to. No secret. */
export function embedSettings(): { allowedOrigins: string[] } {
  return { allowedOrigins: [...getConfig().embed.allowedOrigins] };
}
