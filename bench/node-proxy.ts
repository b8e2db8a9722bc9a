import { Agent, createServer, request } from "node:http";

// Baseline for the benchmark: the least a Node.js server can do between a client and the sandbox, a byte-for-
// byte forward over kept-alive connections. Usage: tsx bench/node-proxy.ts <port> <upstream origin>
const [port, upstreamOrigin] = process.argv.slice(2);
if (!port || !upstreamOrigin) {
  process.stderr.write("Usage: tsx bench/node-proxy.ts <port> <upstream origin>\n");
  process.exit(1);
}
const upstream = new URL(upstreamOrigin);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

const server = createServer((incoming, outgoing) => {
  const forward = request(
    {
      agent,
      host: upstream.hostname,
      port: upstream.port,
      method: incoming.method,
      path: incoming.url,
      headers: { ...incoming.headers, host: upstream.host },
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forward.on("error", () => {
    if (!outgoing.headersSent) outgoing.writeHead(502);
    outgoing.end();
  });
  incoming.pipe(forward);
});

server.listen(Number(port), "127.0.0.1", () => process.stdout.write(`proxy listening on ${port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
