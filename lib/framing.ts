/** Only this app and the configured partner portals may frame a page; with none configured, only the app. */
export function frameAncestors(allowedOrigins: readonly string[]): string {
  return ["frame-ancestors 'self'", ...allowedOrigins].join(" ");
}
