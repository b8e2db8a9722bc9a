// @ts-check
/**
 * The app's HTTP server: Next.js's own request handler behind a first hop of ours.
 *
 * Next.js sets X-Forwarded-For to the socket's peer only when the request has none, so whatever a client sends
 * would stand in for its address. Here, as any reverse proxy does, the peer is appended to the header on every
 * request: its right-most entry is always the machine that opened the connection, and lib/http/forwarded.ts
 * walks left from there through the proxies TRUSTED_PROXIES names.
 *
 *   node scripts/server.mjs [--port 3000] [--hostname 127.0.0.1] [--exit-with-parent]
 *
 * --exit-with-parent: the process that started this one (npm start) going away is a stop, as SIGTERM is.
 */
import { createServer } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";

// Read first: a parent that dies while Next.js loads would leave init recorded as the parent (--exit-with-parent).
const parentPid = process.ppid;

// What `next start` sets before it loads Next.js: production builds of React and Next.js's runtime are chosen by
// NODE_ENV when their modules load, so it must be set before the import below.
process.env.NODE_ENV ||= "production";
process.env.NEXT_RUNTIME = "nodejs";
const { default: next } = await import("next");

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    hostname: { type: "string" },
    "exit-with-parent": { type: "boolean" },
  },
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

const TRUSTED_PEER = Symbol.for("partner-sales.trusted-peer");

/** Responses not yet finished: once the listener has closed, their connections close after them. */
const unfinished = new Set();
let closing = false;

const server = createServer((request, response) => {
  const forwarded = request.headers["x-forwarded-for"];
  const peer = peerAddress(request.socket);
  request.headers["x-forwarded-for"] = forwarded ? `${forwarded}, ${peer}` : peer;
  // The host and scheme a client says it asked for are a proxy's to tell: from a peer TRUSTED_PROXIES does not name
  // they go, before Next.js compares a server action's Origin with them (lib/server-start.ts registers the check).
  if (!globalThis[TRUSTED_PEER]?.(peer)) {
    for (const name of ["x-forwarded-host", "x-forwarded-proto", "x-forwarded-port"])
      delete request.headers[name];
  }
  if (closing) response.setHeader("Connection", "close");
  unfinished.add(response);
  response.once("close", () => unfinished.delete(response));
  void handle(request, response);
});

/**
 * No new connections, and none kept alive: a client (nginx's upstream pool) reusing a kept-alive connection would
 * otherwise go on sending requests here, and the process would never be done. Idle connections close now (close()
 * closes them itself); busy ones after their answer (`Connection: close`, or closed once the answer is out when
 * its headers are).
 */
function stopListening(done) {
  closing = true;
  server.close(done);
  for (const response of unfinished) {
    if (!response.headersSent) response.setHeader("Connection", "close");
    else response.once("finish", () => response.socket?.end());
  }
}

server.listen(port, hostname, () => {
  console.log(`Partner Sales listening on http://${hostname ?? "localhost"}:${port}`);
});

let outputClosed = false;

/** One JSON log line, as lib/log.ts writes them (the console is captured by the app once it starts). */
function logLine(/** @type {"info" | "error"} */ level, /** @type {string} */ event, fields = {}) {
  if (outputClosed) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, service: "app", event, ...fields });
  (level === "error" ? process.stderr : process.stdout).write(`${line}\n`);
}

/**
 * The drain. On SIGTERM (or Ctrl-C) the readiness check (/api/health) answers 503 at once, while everything is
 * still served for DRAIN_DELAY_SECONDS (0 by default), time for a load balancer's probes to see it. Then the
 * listener closes, so new connections go to the other instances (a proxy retries a refused connection
 * elsewhere); idle keep-alive connections are closed; requests in flight, a sale waiting on the provider among
 * them, run to their end and get their answer; and the process exits. The app publishes the plan when it starts
 * (lib/lifecycle.ts): whatever is still running once a sale's deadline has passed is cut off, and its sale, still
 * `pending`, is what another instance's sweep marks `unknown` for a supervisor.
 */
const DRAINING = Symbol.for("partner-sales.draining");

/** Runs the hooks the app registered under `name` (lib/lifecycle.ts), all at once, for `limitMs` at most. */
async function runHooks(/** @type {string} */ name, /** @type {number} */ limitMs) {
  const hooks = globalThis[Symbol.for(name)] ?? [];
  let timer;
  const done = await Promise.race([
    Promise.allSettled(hooks.map((/** @type {() => Promise<unknown>} */ run) => run())).then(() => true),
    new Promise((resolve) => (timer = setTimeout(() => resolve(false), limitMs))),
  ]);
  clearTimeout(timer);
  return done;
}

let exiting = false;

/**
 * The end: held outcomes written and queued traces sent (beforeExit, five seconds at most), then the database
 * closed (closeAtExit): the embedded one checkpoints, so the next start replays nothing.
 */
async function exitAfterHooks(/** @type {number} */ code, /** @type {number} */ hooksMs) {
  if (exiting) return;
  exiting = true;
  await runHooks("partner-sales.before-exit-hooks", hooksMs);
  const started = Date.now();
  const closed = await runHooks("partner-sales.close-at-exit-hooks", 10_000);
  if (closed) logLine("info", "server.closed", { ms: Date.now() - started });
  else logLine("error", "server.close_timeout", { ms: Date.now() - started });
  process.exit(code);
}

/** Why the server stops: a signal, its parent gone (--exit-with-parent), or its output closed under it. */
function drain(/** @type {NodeJS.Signals | "parent_exited" | "output_closed"} */ cause) {
  if (globalThis[DRAINING]) return;
  globalThis[DRAINING] = true;
  // Before the app has published its plan: the sale deadline at the default upstream timeout (15 s).
  const { delayMs = 0, limitMs = 65_000 } = globalThis[Symbol.for("partner-sales.drain-plan")] ?? {};
  const started = Date.now();
  logLine("info", "server.draining", { cause, delayMs, limitMs });
  const cut = setTimeout(() => {
    if (exiting) return;
    logLine("error", "server.drain_cut", { ms: Date.now() - started });
    void exitAfterHooks(1, 1_000);
  }, delayMs + limitMs).unref();
  setTimeout(() => {
    stopListening(() => {
      clearTimeout(cut);
      logLine("info", "server.drained", { ms: Date.now() - started });
      void exitAfterHooks(0, 5_000);
    });
  }, delayMs);
}
// Every time, not once: a signal to the whole process group (systemd's default stop, `kill -- -PGID`) reaches this
// process and `npm start`'s, which passes it on; a second SIGTERM with no handler would end the drain at once.
process.on("SIGTERM", drain);
process.on("SIGINT", drain);
// The terminal that ran `npm start` closed.
process.on("SIGHUP", drain);

// A pipe whose reader is gone (npm start killed: EPIPE), a terminal closed (EIO): every write fails, and an
// unhandled failure would be reported through the console to the same output, again and again. The server
// stops instead, writing nothing more.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", () => {
    outputClosed = true;
    drain("output_closed");
  });
}

if (values["exit-with-parent"]) {
  // An orphan is adopted by init (or a subreaper): its parent's pid changes. Polled, since nothing signals it.
  setInterval(() => {
    if (process.ppid !== parentPid) drain("parent_exited");
  }, 500).unref();
}
