import { getConfig } from "@/lib/env";
import { frameAncestors } from "@/lib/framing";

/**
 * A JSON answer no cache may keep: every API answer here is about one person's session or sale. It carries the
 * framing policy itself, because the proxy (proxy.ts) skips these routes: on the path of every sale it cost
 * more than its redirect logic, which only pages need.
 */
export function noStoreJson(status: number, body: unknown): Response {
  return Response.json(body, {
    status,
    headers: {
      "Cache-Control": "no-store",
      "Content-Security-Policy": frameAncestors(getConfig().embed.allowedOrigins),
    },
  });
}
