// The framework's floor for the benchmark: Next.js with nothing of ours, built with the repository's own `next`.
// bench/run.ts builds it with webpack: Turbopack, rooted at the repository (where node_modules is), also bundles
// the app's own instrumentation.ts and proxy.ts into this nested app (seen with Next 16.4.6), which would make it
// no floor at all. The server that answers requests is the same either way.
/** @type {import('next').NextConfig} */
const nextConfig = { poweredByHeader: false };

export default nextConfig;
