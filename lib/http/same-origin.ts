import "server-only";
import { errorResponse } from "@/lib/http/json";
import { getConfig } from "@/lib/env";
import { clientAddress, forwardedHost } from "@/lib/http/forwarded";
import { securityEventOnce } from "@/lib/security-log";

/**
 * A browser on another site may carry our cookies: only this origin (or a non-browser client) may post. This
 * origin is AUTH_URL's, from configuration; the host a trusted proxy forwards (X-Forwarded-Host) is taken too, from
 * TRUSTED_PROXIES only. Never a client's X-Forwarded-Host, nor (once AUTH_URL is set, as live mode requires) the
 * request's own Host: whoever sends the post writes those.
 */
function isCrossSite(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return true;
  const origin = request.headers.get("origin");
  if (!origin) return false;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return true; // "null" (a sandboxed frame, a data: page) or garbage
  }
  const config = getConfig();
  if (from.origin === new URL(config.publicUrl).origin) return false;
  if (!config.publicUrlConfigured && from.host === request.headers.get("host")) return false;
  const forwarded = forwardedHost(request.headers);
  return !(forwarded && from.host === forwarded);
}

/**
 * The one answer to a request another site made a browser send (routes, and server actions in the proxy): `403
 * cross_site`, and a line in the security log saying from where. Null when the request is this site's own.
 */
export async function crossSiteRefusal(request: Request): Promise<Response | null> {
  if (!isCrossSite(request)) return null;
  const address = clientAddress(request.headers);
  const path = new URL(request.url).pathname.slice(0, 200);
  // Once every few minutes per address and path: a page that keeps posting here cannot flood the log.
  await securityEventOnce(`cross-site:${address}:${path}`, "access.refused", {
    outcome: "failure",
    door: null,
    agentId: null,
    address,
    reason: "cross_site",
    details: { path },
  });
  return errorResponse("cross_site");
}
