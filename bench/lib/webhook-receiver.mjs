// A partner's webhook receivers for bench/webhooks-worker.ts, in a process of their own as a partner's would be:
// `count` servers on 127.0.0.1 answering 204 to everything. Each event's arrival (its sale's submissionId and the
// wall-clock time in ms, comparable across processes) goes to the parent over IPC, a batch every 20 ms.
import { createServer } from "node:http";

const count = Number(process.argv[2] ?? 2);
let arrivals = [];
setInterval(() => {
  if (arrivals.length === 0) return;
  process.send({ arrivals });
  arrivals = [];
}, 20).unref();

const urls = [];
for (let index = 0; index < count; index += 1) {
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const at = performance.timeOrigin + performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if (body.data?.submissionId) arrivals.push([body.data.submissionId, at]);
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  urls.push(`http://127.0.0.1:${server.address().port}/hooks`);
}
process.send({ urls });
process.on("disconnect", () => process.exit(0));
