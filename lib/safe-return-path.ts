/** Safe return paths only: a path on this site, never `//host`, `/\thost` or an absolute URL. */
export function safeReturnPath(value: unknown, fallback = "/"): string {
  // Browsers drop tabs and newlines from URLs, so "/\t/evil.example" would become "//evil.example".
  if (typeof value !== "string" || !value.startsWith("/") || /[\u0000-\u001f\\]/.test(value)) return fallback;
  const base = "http://partner-sales.invalid";
  const url = new URL(value, base);
  return url.origin === base ? `${url.pathname}${url.search}${url.hash}` : fallback;
}
