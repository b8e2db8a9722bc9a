// Placeholder so the security headers can ask the question: the lead's version, which believes
// X-Forwarded-Proto only from TRUSTED_PROXIES, replaces this file at merge.
export function isHttpsRequest(headers: Headers): boolean {
  return headers.get("x-forwarded-proto") === "https";
}
