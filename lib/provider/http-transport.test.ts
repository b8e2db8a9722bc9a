import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProviderClient } from "./client";
import { MAX_ANSWER_BYTES, providerFetch } from "./http-transport";

// A provider that answers the token endpoint properly and the sale with as many bytes as the path asks for.
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/token") {
      response.writeHead(200, { "content-type": "application/json" });
      return void response.end(JSON.stringify({ access_token: "t", token_type: "Bearer", expires_in: 3600 }));
    }
    const size = Number(request.url?.slice(1));
    response.writeHead(200, { "content-type": "application/json" });
    // An envelope followed by padding: valid JSON whatever the size, so only the cap can refuse it.
    const envelope = JSON.stringify({ data: true, message: "ok", success: true, total: null });
    response.end(envelope + " ".repeat(Math.max(0, size - envelope.length)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("providerFetch", () => {
  it("hands on an answer up to the cap whole", async () => {
    const response = await providerFetch(`${baseUrl}/${MAX_ANSWER_BYTES}`, { method: "POST", body: "{}" });
    expect((await response.text()).length).toBe(MAX_ANSWER_BYTES);
  });

  it("drops a bigger answer unread, with an empty body", async () => {
    const response = await providerFetch(`${baseUrl}/${20 * 1024 * 1024}`, { method: "POST", body: "{}" });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
  });

  it("makes an oversized sale answer an unknown outcome (never accepted, never resent)", async () => {
    const client = createProviderClient(
      {
        baseUrl,
        tokenPath: "/token",
        salePath: `/${MAX_ANSWER_BYTES + 1}`,
        clientId: "client",
        clientSecret: "secret",
        partnerSource: undefined,
        timeoutMs: 5_000,
      },
      { log: { info() {}, warn() {}, error() {} } },
    );
    const sale = {
      customerDocument: "52998224725",
      customerEmail: "maria@example.com",
      customerPhone: "11987654321",
      customerName: "Maria Souza",
      planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
    };
    expect(await client.postSale(sale)).toEqual({
      status: "unknown",
      reason: "malformed-answer",
      httpStatus: 200,
    });
  });
});
