// The largest server action body (the sale form is about 2 kB): BODY_LIMITS.serverAction in lib/http/read-body.ts.
const SERVER_ACTION_BODY_LIMIT = 32 * 1024;

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
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

export default nextConfig;
