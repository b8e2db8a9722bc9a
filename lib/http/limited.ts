import type { RequestLimitName } from "@/lib/metrics";
import { errorResponse } from "./json";

/** The JSON answer to a refused request: `429`, and when to come back. */
export function limitedResponse({
  limit,
  retryAfterSeconds,
}: {
  limit?: RequestLimitName;
  retryAfterSeconds: number;
}): Response {
  const code =
    limit === "export" ? "export_in_progress" : limit === "export_busy" ? "exports_busy" : "rate_limited";
  const response = errorResponse(code);
  response.headers.set("Retry-After", String(retryAfterSeconds));
  return response;
}
