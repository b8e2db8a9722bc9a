import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowedNetworks } from "./address-guard";
import { sendWebhook, type SendLimits } from "./send";

const SECRET = `whsec_${Buffer.from("a".repeat(32)).toString("base64")}`;
const OLD_SECRET = `whsec_${Buffer.from("b".repeat(32)).toString("base64")}`;

describe("sending one webhook", () => {
  let server: Server;
  let base: string;
  const received: { headers: IncomingMessage["headers"]; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        received.push({ headers: request.headers, body });
        const path = request.url ?? "/";
        // Never answers: only the sender's own time limit ends the attempt.
        if (path === "/slow") return;
        if (path === "/redirect")
          return response.writeHead(307, { location: "http://169.254.169.254/" }).end();
        if (path === "/huge") {
          // An answer without end: only the sender's size cap (or its timeout) stops the attempt.
          response.writeHead(200);
          const chunk = Buffer.alloc(64 * 1024, 120);
          const more = () => {
            while (!response.destroyed && response.write(chunk));
            if (!response.destroyed) response.once("drain", more);
          };
          return more();
        }
        if (path === "/down") return response.writeHead(503).end();
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const limits: SendLimits = {
    timeoutMs: 500,
    maxResponseBytes: 64 * 1024,
    allowed: allowedNetworks(["127.0.0.0/8"]),
    allowHttp: true,
  };
  const message = (url: string) => ({
    url,
    id: "6f1c2a4e-8d1b-4f7e-9a3c-2b5d7e9f1a0c",
    timestamp: new Date(),
    body: JSON.stringify({ type: "sale.accepted", data: { protocol: "7KQ2M-X9R4B" } }),
    secrets: [SECRET, OLD_SECRET],
  });

  it("signs so that a Standard Webhooks library verifies with either secret of a rotation", async () => {
    received.length = 0;
    expect(await sendWebhook(message(`${base}/ok`), limits)).toMatchObject({ statusCode: 204, error: null });
    const [{ headers, body }] = received as [(typeof received)[number]];
    const asReceived = {
      "webhook-id": String(headers["webhook-id"]),
      "webhook-timestamp": String(headers["webhook-timestamp"]),
      "webhook-signature": String(headers["webhook-signature"]),
    };
    for (const secret of [SECRET, OLD_SECRET]) {
      expect(new Webhook(secret).verify(body, asReceived)).toMatchObject({ type: "sale.accepted" });
    }
    const stranger = `whsec_${Buffer.from("c".repeat(32)).toString("base64")}`;
    expect(() => new Webhook(stranger).verify(body, asReceived)).toThrow();
  });

  it("refuses loopback unless allowed, plain HTTP in live mode, and follows no redirect", async () => {
    const live = { ...limits, allowed: allowedNetworks([]) };
    expect(await sendWebhook(message(`${base}/ok`), live)).toMatchObject({ error: "refused_address" });
    expect(await sendWebhook(message(`http://localhost:${new URL(base).port}/ok`), live)).toMatchObject({
      error: "refused_address",
    });
    expect(await sendWebhook(message("http://[::1]/ok"), live)).toMatchObject({ error: "refused_address" });
    expect(await sendWebhook(message("http://169.254.169.254/latest"), live)).toMatchObject({
      error: "refused_address",
    });
    expect(await sendWebhook(message(`${base}/ok`), { ...limits, allowHttp: false })).toMatchObject({
      error: "scheme_refused",
    });
    expect(await sendWebhook(message(`${base}/redirect`), limits)).toMatchObject({
      statusCode: 307,
      error: "redirect",
    });
  });

  it("gives up on a slow receiver at the timeout and stops reading a huge answer", async () => {
    expect(await sendWebhook(message(`${base}/slow`), limits)).toMatchObject({
      statusCode: null,
      error: "timeout",
    });
    expect(await sendWebhook(message(`${base}/huge`), limits)).toMatchObject({
      statusCode: 200,
      error: null,
    });
    expect(await sendWebhook(message(`${base}/down`), limits)).toMatchObject({
      statusCode: 503,
      error: "status_503",
    });
  });
});
