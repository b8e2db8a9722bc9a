import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Stats } from "@/sandbox/state";
import {
  clientConfigFor,
  control,
  startSandbox,
  validSale,
  type RunningSandbox,
} from "@/sandbox/test-support";
import { createProviderClient, fieldsNamedIn, type ProviderConfig, type SaleFields } from "./client";

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
afterEach(async () => {
  await control(sandbox.url, "POST", "reset");
});

function configFor(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return clientConfigFor(sandbox.url, overrides);
}

function collectingLog() {
  const lines: string[] = [];
  const write = (event: string, fields?: Record<string, unknown>) =>
    void lines.push(JSON.stringify({ event, ...fields }));
  return { lines, log: { info: write, warn: write, error: write } };
}

const sale = (overrides: Partial<SaleFields> = {}) => validSale(overrides) as unknown as SaleFields;
const stats = async () => (await control<Stats>(sandbox.url, "GET", "stats")).body;

describe("token lifecycle", () => {
  it("makes one token request for 1,000 sequential sales", async () => {
    const client = createProviderClient(configFor(), collectingLog());
    for (let index = 0; index < 1000; index++) {
      const outcome = await client.postSale(sale());
      if (outcome.status !== "accepted") throw new Error(`sale ${index}: ${JSON.stringify(outcome)}`);
    }
    expect(await stats()).toMatchObject({ tokenRequests: 1, tokensIssued: 1, salesAccepted: 1000 });
  });

  it("makes one token request for 200 concurrent first calls on a cold cache", async () => {
    const client = createProviderClient(configFor(), collectingLog());
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => client.postSale(sale())));
    expect(outcomes.every((outcome) => outcome.status === "accepted")).toBe(true);
    expect(await stats()).toMatchObject({ tokenRequests: 1, salesAccepted: 200 });
  });

  it("renews a short-lived token before it expires, under steady traffic", async () => {
    // One clock for the provider and the client, moved by the test: 20 s of traffic, a sale every 50 ms, in a
    // moment. The provider checks each token against it, so a token used past its 6 s would be refused (401).
    let now = Date.now();
    const clocked = await startSandbox({ now: () => now, tokenLifetimeSeconds: 6 });
    try {
      const client = createProviderClient(configFor({ baseUrl: clocked.url }), {
        ...collectingLog(),
        now: () => now,
      });
      let sent = 0;
      let accepted = 0;
      for (const end = now + 20_000; now < end; now += 50) {
        sent++;
        if ((await client.postSale(sale())).status === "accepted") accepted++;
      }
      const { saleResponses, tokensIssued } = (await control<Stats>(clocked.url, "GET", "stats")).body;
      expect(saleResponses["401"] ?? 0).toBe(0);
      expect(accepted).toBe(sent);
      // Renewal at half of a 6 s lifetime: at 0, 3, 6 … 18 s.
      expect(tokensIssued).toBe(7);
    } finally {
      await clocked.close();
    }
  });

  it("renews once and retries once when the upstream revoked the token", async () => {
    const client = createProviderClient(configFor(), collectingLog());
    expect((await client.postSale(sale())).status).toBe("accepted");
    await control(sandbox.url, "POST", "reset");
    await control(sandbox.url, "POST", "tokens/revoke");

    expect((await client.postSale(sale())).status).toBe("accepted");
    expect(await stats()).toMatchObject({
      tokenRequests: 1,
      saleRequests: 2,
      salesAccepted: 1,
      saleResponses: { "401": 1, "200": 1 },
    });
  });

  it("gives a typed configuration error for a wrong secret, backs off, and logs only the client id", async () => {
    const { lines, log } = collectingLog();
    const client = createProviderClient(configFor({ clientSecret: "wrong-secret-value" }), { log });
    const outcomes = [];
    for (let index = 0; index < 5; index++) outcomes.push(await client.postSale(sale()));

    expect(outcomes).toEqual(Array(5).fill({ status: "failed", code: "partner_api.invalid_client" }));
    expect(await stats()).toMatchObject({ tokenRequests: 1, saleRequests: 0 });
    expect(client.tokenStatus()).toMatchObject({
      cached: false,
      lastExchange: { ok: false, code: "partner_api.invalid_client" },
    });
    const joined = lines.join("\n");
    expect(joined).toContain("sandbox-client");
    expect(joined).not.toContain("wrong-secret-value");
    expect(lines.filter((line) => line.includes('"event":"partner_api.invalid_client"'))).toHaveLength(1);
  });

  it("lets the retry of a failed sale through at once after a transient token failure; others wait", async () => {
    // A clock that never moves: whether the back-off applies depends on who asks, not on the machine's speed.
    const client = createProviderClient(configFor(), { ...collectingLog(), now: () => 1_000_000 });
    await control(sandbox.url, "POST", "faults", { kind: "503", target: "token", count: 1 });
    const failed = sale();
    const nothingSent = { status: "failed", code: "partner_api.token_unavailable" };
    expect(await client.postSale(failed)).toEqual(nothingSent);
    await client.warmUp();
    expect(await client.postSale(sale())).toEqual(nothingSent);
    expect(await stats()).toMatchObject({ tokenRequests: 1 });
    expect((await client.postSale(failed, { retry: true })).status).toBe("accepted");
    expect(await stats()).toMatchObject({ tokenRequests: 2, salesAccepted: 1 });
  });

  it("reports the cached token's remaining life, never the token", async () => {
    const client = createProviderClient(configFor(), collectingLog());
    expect(client.tokenStatus()).toEqual({ cached: false, expiresInSeconds: null, lastExchange: null });
    await client.postSale(sale());
    const status = client.tokenStatus();
    expect(status.cached).toBe(true);
    expect(status.expiresInSeconds).toBeGreaterThan(3590);
    expect(status.lastExchange?.ok).toBe(true);
    expect(Object.keys(status).sort()).toEqual(["cached", "expiresInSeconds", "lastExchange"]);
  });
});

describe("sale outcomes", () => {
  it("sends exactly the documented request", async () => {
    const client = createProviderClient(configFor({ partnerSource: "Parceiro Exemplo" }), collectingLog());
    const fields = sale({ customerDocument: "52998224725", externalId: "CRM-42", birthDate: "1990-05-17" });
    expect(await client.postSale(fields)).toEqual({
      status: "accepted",
      httpStatus: 200,
      message: "Venda de parceiro registrada.",
    });

    const { body: requests } = await control<
      { method: string; path: string; headers: Record<string, string>; rawBody: string }[]
    >(sandbox.url, "GET", "requests");
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/core/financeiro/partnersale");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers.authorization).toMatch(/^Bearer [A-Za-z0-9_-]{40,}$/);
    expect(request?.rawBody).toBe(
      '{"customerDocument":"52998224725","customerEmail":"maria.souza@example.com","customerPhone":"11987654321",' +
        '"customerName":"Maria Conceição D\'Ávila","planId":"3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",' +
        '"partnerSource":"Parceiro Exemplo","externalId":"CRM-42","birthDate":"1990-05-17"}',
    );
  });

  it("leaves empty optional fields out of the body", async () => {
    const client = createProviderClient(configFor(), collectingLog());
    await client.postSale(sale({ externalId: "", birthDate: undefined }));
    const { body: requests } = await control<{ rawBody: string }[]>(sandbox.url, "GET", "requests");
    expect(Object.keys(JSON.parse(requests[0]?.rawBody ?? "{}"))).toEqual([
      "customerDocument",
      "customerEmail",
      "customerPhone",
      "customerName",
      "planId",
    ]);
  });

  it("is unknown after a timeout, with exactly one POST received", async () => {
    await control(sandbox.url, "POST", "faults", { kind: "timeout" });
    const client = createProviderClient(configFor({ timeoutMs: 300 }), collectingLog());
    expect(await client.postSale(sale())).toEqual({ status: "unknown", reason: "timeout" });
    expect(await stats()).toMatchObject({ saleRequests: 1, tokenRequests: 1 });
  });

  it.each([
    ["500", { status: "unknown", reason: "server-error", httpStatus: 500 }],
    ["503", { status: "unknown", reason: "server-error", httpStatus: 503 }],
    ["malformed", { status: "unknown", reason: "malformed-answer", httpStatus: 200 }],
    ["html", { status: "unknown", reason: "server-error", httpStatus: 502 }],
  ])("is unknown on a %s answer, without retrying", async (kind, expected) => {
    await control(sandbox.url, "POST", "faults", { kind });
    const client = createProviderClient(configFor(), collectingLog());
    expect(await client.postSale(sale())).toEqual(expected);
    expect((await stats()).saleRequests).toBe(1);
  });

  it("has failed, with nothing sent, when the upstream refuses the connection", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const client = createProviderClient(
      configFor({ baseUrl: `http://127.0.0.1:${closedPort}` }),
      collectingLog(),
    );
    expect(await client.postSale(sale())).toEqual({
      status: "failed",
      code: "partner_api.token_unreachable",
    });
  });

  it("has failed when the sale endpoint refuses the connection after a token was issued", async () => {
    const client = createProviderClient(configFor(), collectingLog());
    await client.postSale(sale());
    const closed = await startSandbox();
    const url = closed.url;
    await closed.close();
    const elsewhere = createProviderClient(configFor({ baseUrl: url }), collectingLog());
    expect(await elsewhere.postSale(sale())).toMatchObject({ status: "failed" });
  });

  it("is rejected with the upstream message and the fields it names on 400", async () => {
    const client = createProviderClient(configFor(), collectingLog());
    const outcome = await client.postSale(
      sale({ customerPhone: "11087654321", customerEmail: "sem-dominio@" }),
    );
    expect(outcome).toMatchObject({ status: "rejected", httpStatus: 400 });
    expect(outcome.status === "rejected" && outcome.fields.sort()).toEqual([
      "customerEmail",
      "customerPhone",
    ]);
    expect(outcome.status === "rejected" && outcome.message).toMatch(/customerPhone/);
  });

  it("is rejected with the upstream message on 409 and 422", async () => {
    const client = createProviderClient(configFor(), collectingLog());
    const first = sale();
    await client.postSale(first);
    const duplicate = await client.postSale(first);
    expect(duplicate).toMatchObject({ status: "rejected", httpStatus: 409 });
    expect(duplicate.status === "rejected" && duplicate.message).toMatch(/já possui/i);

    const unknownPlan = await client.postSale(sale({ planId: "00000000-0000-4000-8000-000000000000" }));
    expect(unknownPlan).toMatchObject({ status: "rejected", httpStatus: 422 });
    expect(unknownPlan.status === "rejected" && unknownPlan.message).toMatch(/plano/i);
  });

  it("treats a second 401 after a fresh token as a configuration failure", async () => {
    // The provider's clock runs 2 s on between issuing a token (it lives 1 s) and checking it: every token it
    // gives is refused, the fresh one too.
    let now = Date.now();
    const clocked = await startSandbox({ now: () => (now += 1_000), tokenLifetimeSeconds: 1 });
    try {
      const client = createProviderClient(configFor({ baseUrl: clocked.url }), collectingLog());
      const outcome = await client.postSale(sale());
      expect(outcome).toEqual({ status: "failed", code: "partner_api.unauthorized", httpStatus: 401 });
      const { saleResponses, tokensIssued } = (await control<Stats>(clocked.url, "GET", "stats")).body;
      expect(saleResponses["401"]).toBe(2);
      expect(tokensIssued).toBe(2);
    } finally {
      await clocked.close();
    }
  });
});

describe("warm-up", () => {
  it("obtains a token before the first sale and swallows failures", async () => {
    const client = createProviderClient(configFor(), collectingLog());
    await client.warmUp();
    expect(client.tokenStatus().cached).toBe(true);
    await client.postSale(sale());
    expect(await stats()).toMatchObject({ tokenRequests: 1, salesAccepted: 1 });

    const failing = createProviderClient(configFor({ clientSecret: "not-the-secret" }), collectingLog());
    await expect(failing.warmUp()).resolves.toBeUndefined();
    expect(failing.tokenStatus().lastExchange).toMatchObject({
      ok: false,
      code: "partner_api.invalid_client",
    });
  });
});

describe("the fields a rejection names", () => {
  it.each([
    ["Campos inválidos: customerDocument, customerPhone.", 400, ["customerDocument", "customerPhone"]],
    ["Invalid fields: planId.", 400, ["planId"]],
    ["O plano informado não existe.", 422, ["planId"]],
    ["The specified plan does not exist.", 422, ["planId"]],
    ["O cliente já possui este plano.", 409, []],
    ["Planejamento indisponível.", 422, []],
  ])("%s (%i) names %j", (message, status, fields) => {
    expect(fieldsNamedIn(message, status)).toEqual(fields);
  });
});
