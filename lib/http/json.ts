import { errorBody, httpStatusFor, RETRY_AFTER_SECONDS, type ErrorCode } from "@/lib/errors";
import { getConfig } from "@/lib/env";
import { jsonSecurityHeaders } from "@/lib/http/security-headers";

/**
 * A JSON answer no cache may keep: every API answer here is about one person's session or sale. It carries its
 * security headers itself, because the proxy (proxy.ts) skips these routes: on the path of every sale it cost
 * more than its redirect logic, which only pages need. Every 503 says when to come back (`Retry-After`).
 */
export function noStoreJson(status: number, body: unknown): Response {
  return Response.json(body, {
    status,
    headers: {
      "Cache-Control": "no-store",
      ...apiSecurityHeaders(),
      ...(status === 503 ? { "Retry-After": String(RETRY_AFTER_SECONDS) } : {}),
    },
  });
}

/** For the non-HTML answers of routes the proxy does not see. */
export function apiSecurityHeaders(): Record<string, string> {
  return jsonSecurityHeaders({ allowedOrigins: getConfig().embed.allowedOrigins });
}

/** The one error answer: the code's status and the JSON error body. */
export function errorResponse(code: ErrorCode, fieldErrors?: Record<string, string>): Response {
  // No "Connection: close" after a refused body: the server stops reading, so a client still sending is held
  // (TCP flow control) and reads this answer, where a closed socket would reset it before it could.
  return noStoreJson(httpStatusFor(code), errorBody(code, fieldErrors));
}
