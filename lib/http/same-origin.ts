import "server-only";
import { errorResponse } from "@/lib/http/json";
import { clientAddress } from "@/lib/http/forwarded";
import { securityEventOnce } from "@/lib/security-log";

/** A browser on another site may carry our cookies: only this origin (or a non-browser client) may post. */
function isCrossSite(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return true;
  const origin = request.headers.get("origin");
  if (!origin) return false;
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
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
