import type { NextConfig } from "next";
import { BASELINE_HEADERS, EMBED_SCRIPT_HEADERS, STATIC_ASSET_HEADERS } from "./lib/http/security-headers";

// The largest server action body (the sale form is about 2 kB): BODY_LIMITS.serverAction in lib/http/read-body.ts.
const SERVER_ACTION_BODY_LIMIT = 32 * 1024;

const asHeaderList = (headers: Record<string, string>) =>
  Object.entries(headers).map(([key, value]) => ({ key, value }));

const nextConfig: NextConfig = {
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
  // Only for what proxy.ts does not see; pages and JSON routes get theirs from lib/http/security-headers.ts too.
  async headers() {
    return [
      { source: "/:path*", headers: asHeaderList(BASELINE_HEADERS) },
      { source: "/_next/:path*", headers: asHeaderList(STATIC_ASSET_HEADERS) },
      { source: "/embed.js", headers: asHeaderList(EMBED_SCRIPT_HEADERS) },
    ];
  },
};

export default nextConfig;
