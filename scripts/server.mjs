// @ts-check
/**
 * The app's HTTP server: Next.js's own request handler behind a first hop of ours.
 *
 * Next.js sets X-Forwarded-For to the socket's peer only when the request has none, so whatever a client sends
 * would stand in for its address. Here, as any reverse proxy does, the peer is appended to the header on every
 * request: its right-most entry is always the machine that opened the connection, and lib/http/forwarded.ts
 * walks left from there through the proxies TRUSTED_PROXIES names.
 *
 *   node scripts/server.mjs [--port 3000] [--hostname 127.0.0.1]
 */
import { createServer } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";

// What `next start` sets before it loads Next.js: production builds of React and Next.js's runtime are chosen by
// NODE_ENV when their modules load, so it must be set before the import below.
process.env.NODE_ENV ||= "production";
process.env.NEXT_RUNTIME = "nodejs";
const { default: next } = await import("next");

const { values } = parseArgs({
  options: { port: { type: "string" }, hostname: { type: "string" } },
  strict: true,
});
const port = Number(values.port ?? process.env.PORT ?? 3000);
const hostname = values.hostname;

/** IPv4 peers of a dual-stack socket arrive as "::ffff:127.0.0.1". */
function peerAddress(/** @type {import("node:net").Socket} */ socket) {
  const address = socket.remoteAddress ?? "unknown";
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

// Tells lib/http/forwarded.ts (same process) that the right-most X-Forwarded-For entry is ours. Run any other way
// (`next dev`, bare `next start`) that entry may be the client's own, and no address is believed at all.
globalThis[Symbol.for("partner-sales.peer-appended")] = true;

const app = next({
  dev: false,
  dir: join(import.meta.dirname, ".."),
  port,
  hostname: hostname ?? "localhost",
});
const handle = app.getRequestHandler();
await app.prepare();

const server = createServer((request, response) => {
  const forwarded = request.headers["x-forwarded-for"];
  const peer = peerAddress(request.socket);
  request.headers["x-forwarded-for"] = forwarded ? `${forwarded}, ${peer}` : peer;
  void handle(request, response);
});

server.listen(port, hostname, () => {
  console.log(`Partner Sales listening on http://${hostname ?? "localhost"}:${port}`);
});

const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
