// The largest server action body (the sale form is about 2 kB): BODY_LIMITS.serverAction in lib/http/read-body.ts.
const SERVER_ACTION_BODY_LIMIT = 32 * 1024;

// Static answers' headers (what proxy.ts does not see). Pages and JSON get theirs per response from
// lib/http/security-headers.ts, whose values these repeat: lib/http/security-headers.test.ts holds them together.
const BASELINE_HEADERS = {
  // Under everything, for answers no code of ours writes (a route handler's 405, a crash's 500).
  "Referrer-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
};
// Next.js's hashed build files: loaded only by the app's own pages.
const STATIC_ASSET_HEADERS = {
  "Cross-Origin-Resource-Policy": "same-origin",
  "X-Content-Type-Options": "nosniff",
};
// public/embed.js, which partner portals load from their own origin: any origin may load it, also with
// `crossorigin` and an `integrity` hash (CORS without credentials: the same public file for everyone). Its
// address is not content-hashed, so caches keep it five minutes and then revalidate (ETag).
const EMBED_SCRIPT_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Cache-Control": "public, max-age=300",
  "Cross-Origin-Resource-Policy": "cross-origin",
  "X-Content-Type-Options": "nosniff",
};

// public/embed.d.ts, embed.js's TypeScript declarations for portal developers and their tools: the same, as text
// (by its name alone a ".ts" file would go out as video/mp2t).
const EMBED_DECLARATIONS_HEADERS = { ...EMBED_SCRIPT_HEADERS, "Content-Type": "text/plain; charset=utf-8" };

/** @param {Record<string, string>} headers */
const asHeaderList = (headers) => Object.entries(headers).map(([key, value]) => ({ key, value }));

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  typedRoutes: true,
  // Native and WebAssembly packages load from node_modules at run time instead of being bundled.
  serverExternalPackages: ["@node-rs/argon2", "@electric-sql/pglite", "@electric-sql/pglite-socket", "pg"],
  experimental: {
    // Counted as the bytes arrive: past the limit Next.js stops reading and refuses the action.
    serverActions: { bodySizeLimit: SERVER_ACTION_BODY_LIMIT },
    // Next.js keeps a copy of every body the proxy sees (10 MB each by default), reading and discarding the rest.
    // One byte over the action limit: a body cut here still trips the action's own limit, never parses as less.
    proxyClientMaxBodySize: SERVER_ACTION_BODY_LIMIT + 1,
  },
  async headers() {
    return [
      { source: "/:path*", headers: asHeaderList(BASELINE_HEADERS) },
      { source: "/_next/:path*", headers: asHeaderList(STATIC_ASSET_HEADERS) },
      { source: "/embed.js", headers: asHeaderList(EMBED_SCRIPT_HEADERS) },
      { source: "/embed.d.ts", headers: asHeaderList(EMBED_DECLARATIONS_HEADERS) },
    ];
  },
};

export default nextConfig;
