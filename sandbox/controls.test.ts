import { beforeEach, describe, expect, it } from "vitest";
import demoPlans from "./demo-plans.json";
import type { Stats } from "./state";
import {
  control,
  issueToken,
  postSale,
  requestToken,
  SALE_PATH,
  startSandbox,
  validSale,
} from "./test-support";
import { sandboxPerFile } from "./sandbox-per-file";
import { planSchema } from "@/lib/config/plans";

let url: string;
let token: string;

sandboxPerFile((running) => {
  url = running.url;
});
beforeEach(async () => {
  token = await issueToken(url);
});

interface RecordedRequest {
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
}

const stats = async () => (await control<Stats>(url, "GET", "stats")).body;
const badCredentials = {
  grant_type: "client_credentials",
  client_id: "sandbox-client",
  client_secret: "nope",
};

describe("stats", () => {
  it("counts token and sale requests, issuances, acceptances and answers by status", async () => {
    await requestToken(url, badCredentials);
    await postSale(url, token, validSale());
    await postSale(url, token, validSale({ customerPhone: "1" }));
    await postSale(url, null, validSale());
    await fetch(`${url}${SALE_PATH}`);

    expect(await stats()).toEqual({
      tokenRequests: 2,
      tokensIssued: 1,
      saleRequests: 4,
      salesAccepted: 1,
      saleResponses: { "200": 1, "400": 1, "401": 1, "405": 1 },
      tokenResponses: { "200": 1, "401": 1 },
    });
  });

  it("does not count control requests", async () => {
    await control(url, "GET", "sales");
    expect(await stats()).toMatchObject({ tokenRequests: 1, saleRequests: 0 });
  });
});

describe("sales", () => {
  it("lists the accepted sales with their body and time of arrival", async () => {
    const sale = validSale({ externalId: "CRM-7" });
    const before = Date.now();
    await postSale(url, token, sale);
    await postSale(url, token, validSale({ customerName: "X" }));

    const { body } = await control<{ receivedAt: string; body: unknown }[]>(url, "GET", "sales");
    expect(body).toHaveLength(1);
    expect(body[0]!.body).toEqual(sale);
    expect(Date.parse(body[0]!.receivedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(new Date(body[0]!.receivedAt).toISOString()).toBe(body[0]!.receivedAt);
  });
});

describe("requests", () => {
  it("records every sale request byte for byte, rejected or not", async () => {
    const rawBody = '{ "customerDocument" : "52998224725",\n "customerName": "Zé" }';
    await postSale(url, token, rawBody, { path: "/core/financeiro/partnerSale?trace=1" });
    await fetch(`${url}${SALE_PATH}`, { method: "PUT", body: "x" });

    const { body } = await control<RecordedRequest[]>(url, "GET", "requests");
    expect(body).toHaveLength(2);
    expect(body[0]).toMatchObject({
      method: "POST",
      path: "/core/financeiro/partnerSale?trace=1",
      rawBody,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    });
    expect(Object.keys(body[0]!.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(body[0]!.receivedAt).toEqual(expect.any(String));
    expect(body[1]).toMatchObject({ method: "PUT", rawBody: "x" });
  });

  it("does not record token requests, which carry the client secret", async () => {
    await requestToken(url, badCredentials);
    expect((await control(url, "GET", "requests")).body).toEqual([]);
  });
});

describe("reset", () => {
  it("clears stats, sales, requests, faults, latency and the token lifetime, but keeps tokens valid", async () => {
    await postSale(url, token, validSale());
    await control(url, "POST", "faults", { kind: "500", count: 3 });
    await control(url, "POST", "latency", { ms: 500 });
    await control(url, "POST", "token-lifetime", { seconds: 5 });

    expect(await control(url, "POST", "reset")).toEqual({ status: 200, body: { ok: true } });

    expect(await stats()).toEqual({
      tokenRequests: 0,
      tokensIssued: 0,
      saleRequests: 0,
      salesAccepted: 0,
      saleResponses: {},
      tokenResponses: {},
    });
    expect((await control(url, "GET", "sales")).body).toEqual([]);
    expect((await control(url, "GET", "requests")).body).toEqual([]);
    expect((await control(url, "GET", "faults")).body).toEqual({
      faults: { sale: [], token: [] },
      latencyMs: { sale: 0, token: 0 },
    });
    const started = performance.now();
    expect((await postSale(url, token, validSale())).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(400);
    const fresh = await requestToken(url, { ...badCredentials, client_secret: "sandbox-secret" });
    expect(((await fresh.json()) as { expires_in: number }).expires_in).toBe(3600);
  });
});

describe("faults", () => {
  const queue = (body: unknown) => control(url, "POST", "faults", body);

  it("answers 500 with plain text, still counting and recording the request", async () => {
    await queue({ kind: "500" });
    const response = await postSale(url, token, validSale());
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    expect((await stats()).saleResponses).toEqual({ "500": 1 });
    expect((await control<unknown[]>(url, "GET", "requests")).body).toHaveLength(1);
    expect((await control(url, "GET", "sales")).body).toEqual([]);
    expect((await postSale(url, token, validSale())).status).toBe(200);
  });

  it("answers 503 with plain text", async () => {
    await queue({ kind: "503" });
    const response = await postSale(url, token, validSale());
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  });

  it("answers 200 with a JSON content type and a body that is not JSON when malformed", async () => {
    await queue({ kind: "malformed" });
    const response = await postSale(url, token, validSale());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const text = await response.text();
    expect(() => JSON.parse(text)).toThrow();
  });

  it("answers 502 with an HTML page, as a proxy would", async () => {
    await queue({ kind: "html" });
    const response = await postSale(url, token, validSale());
    expect(response.status).toBe(502);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toContain("<html>");
  });

  it("never answers on timeout, until the client gives up", async () => {
    await queue({ kind: "timeout" });
    const request = postSale(url, token, validSale(), { signal: AbortSignal.timeout(300) });
    await expect(request).rejects.toMatchObject({ name: "TimeoutError" });
    expect(await stats()).toMatchObject({ saleRequests: 1, salesAccepted: 0, saleResponses: { timeout: 1 } });
    expect((await postSale(url, token, validSale())).status).toBe(200);
  });

  it("serves the next `count` requests with the fault, then answers normally", async () => {
    expect(await queue({ kind: "503", count: 2 })).toEqual({
      status: 200,
      body: { ok: true, faults: { sale: ["503", "503"], token: [] } },
    });
    const statuses = [];
    for (let index = 0; index < 3; index++) statuses.push((await postSale(url, token, validSale())).status);
    expect(statuses).toEqual([503, 503, 200]);
  });

  it.each([
    ["503", 503, /^text\/plain/],
    ["html", 502, /^text\/html/],
    ["malformed", 200, /^application\/json/],
  ])("applies %s to the token endpoint when targeted", async (kind, status, contentType) => {
    await queue({ kind, target: "token" });
    const response = await requestToken(url, { ...badCredentials, client_secret: "sandbox-secret" });
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toMatch(contentType);
    const text = await response.text();
    if (kind === "malformed") expect(() => JSON.parse(text)).toThrow();
    // beforeEach already got one 200 from the token endpoint.
    const expected: Record<string, number> = { "200": 1 };
    expected[status] = (expected[status] ?? 0) + 1;
    expect((await stats()).tokenResponses).toEqual(expected);
    expect((await postSale(url, token, validSale())).status).toBe(200);
  });

  it("times out the token endpoint when targeted", async () => {
    await queue({ kind: "timeout", target: "token" });
    await expect(
      requestToken(url, badCredentials, { signal: AbortSignal.timeout(300) }),
    ).rejects.toMatchObject({ name: "TimeoutError" });
    expect((await stats()).tokenResponses).toMatchObject({ timeout: 1 });
  });

  it("DELETE clears queued faults and latency", async () => {
    await queue({ kind: "500", count: 5 });
    await control(url, "POST", "latency", { ms: 1000 });
    expect(await control(url, "DELETE", "faults")).toEqual({ status: 200, body: { ok: true } });
    const started = performance.now();
    expect((await postSale(url, token, validSale())).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it.each([
    [{}, /'kind'/],
    [{ kind: "404" }, /'kind'/],
    [{ kind: "500", count: 0 }, /'count'/],
    [{ kind: "500", count: 1.5 }, /'count'/],
    [{ kind: "500", target: "plans" }, /'target'/],
    [{ kind: "500", tagret: "token" }, /tagret/],
    ["[]", /objeto JSON/],
    ["{kind", /JSON/],
  ])("refuses bad input %j with 400", async (body, message) => {
    const response = await queue(body);
    expect(response.status).toBe(400);
    expect((response.body as { message: string }).message).toMatch(message);
  });
});

describe("latency", () => {
  const elapsed = async (request: () => Promise<Response>) => {
    const started = performance.now();
    await request();
    return performance.now() - started;
  };

  it("delays only the targeted endpoint", async () => {
    expect(await control(url, "POST", "latency", { ms: 250, target: "sale" })).toEqual({
      status: 200,
      body: { ok: true, latencyMs: { sale: 250, token: 0 } },
    });
    expect(await elapsed(() => postSale(url, token, validSale()))).toBeGreaterThanOrEqual(240);
    expect(await elapsed(() => requestToken(url, badCredentials))).toBeLessThan(240);
  });

  it("delays both endpoints by default", async () => {
    await control(url, "POST", "latency", { ms: 200 });
    expect(await elapsed(() => requestToken(url, badCredentials))).toBeGreaterThanOrEqual(190);
    expect(await elapsed(() => postSale(url, token, validSale()))).toBeGreaterThanOrEqual(190);
  });

  it.each([{}, { ms: -1 }, { ms: "100" }, { ms: 100, target: "controls" }])(
    "refuses %j with 400",
    async (body) => {
      expect((await control(url, "POST", "latency", body)).status).toBe(400);
    },
  );
});

describe("tokens/revoke", () => {
  it("revokes every issued token; new ones work", async () => {
    const other = await issueToken(url);
    const { body } = await control<{ ok: boolean; revoked: number }>(url, "POST", "tokens/revoke");
    expect(body.ok).toBe(true);
    expect(body.revoked).toBeGreaterThanOrEqual(2);
    expect((await postSale(url, token, validSale())).status).toBe(401);
    expect((await postSale(url, other, validSale())).status).toBe(401);
    expect((await postSale(url, await issueToken(url), validSale())).status).toBe(200);
  });
});

describe("token-lifetime", () => {
  it("sets expires_in and the real expiry of tokens issued from now on", async () => {
    expect(await control(url, "POST", "token-lifetime", { seconds: 0 })).toEqual({
      status: 200,
      body: { ok: true, seconds: 0 },
    });
    const response = await requestToken(url, { ...badCredentials, client_secret: "sandbox-secret" });
    const { access_token, expires_in } = (await response.json()) as {
      access_token: string;
      expires_in: number;
    };
    expect(expires_in).toBe(0);
    expect((await postSale(url, access_token, validSale())).status).toBe(401);
    expect((await postSale(url, token, validSale())).status).toBe(200);
  });

  it.each([{}, { seconds: -1 }, { seconds: 1.5 }, { seconds: "60" }])("refuses %j with 400", async (body) => {
    expect((await control(url, "POST", "token-lifetime", body)).status).toBe(400);
  });
});

describe("plans", () => {
  it("lists the demo catalogue in the PLANS_FILE format", async () => {
    const { status, body } = await control<{ id: string; name: string; description: string }[]>(
      url,
      "GET",
      "plans",
    );
    expect(status).toBe(200);
    expect(body).toEqual(demoPlans);
    expect(body.length).toBeGreaterThanOrEqual(3);
    for (const plan of body) {
      // A plan may carry its offer script (issue 36), which only the app reads.
      expect(
        Object.keys(plan)
          .filter((key) => key !== "script")
          .sort(),
      ).toEqual(["description", "id", "name", "price"]);
      expect(planSchema.parse(plan)).toEqual(plan);
      expect(plan.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(body.map((plan) => plan.name)).toEqual([
      "Plano Essencial",
      "Plano Família",
      "Plano Premium",
      "Plano Completo",
    ]);
  });

  it("lists the catalogue given in the options, and sells only from it", async () => {
    const plans = [
      { id: "11111111-2222-4333-8444-555555555555", name: "Plano Teste", description: "Só para testes." },
    ];
    const custom = await startSandbox({ plans });
    try {
      expect((await control(custom.url, "GET", "plans")).body).toEqual(plans);
      const customToken = await issueToken(custom.url);
      expect((await postSale(custom.url, customToken, validSale({ planId: plans[0]!.id }))).status).toBe(200);
      expect((await postSale(custom.url, customToken, validSale())).status).toBe(422);
    } finally {
      await custom.close();
    }
  });
});

describe("control routing", () => {
  it("answers 404 for an unknown control and 405 for a wrong method", async () => {
    expect((await control(url, "GET", "nothing-here")).status).toBe(404);
    const wrongMethod = await fetch(`${url}/__sandbox/reset`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
  });
});

it("close() ends a connection left hanging by a timeout fault", async () => {
  const other = await startSandbox();
  await control(other.url, "POST", "faults", { kind: "timeout" });
  const hanging = postSale(other.url, await issueToken(other.url), validSale());
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  await other.close();
  expect(performance.now() - started).toBeLessThan(1000);
  await expect(hanging).rejects.toThrow();
});

describe("plans/withdraw", () => {
  it("makes a catalogue plan unknown to the sale endpoint until reset", async () => {
    const planId = demoPlans[0]!.id;
    expect((await control(url, "POST", "plans/withdraw", { id: planId })).status).toBe(200);
    const { body: plans } = await control<{ id: string }[]>(url, "GET", "plans");
    expect(plans.map((plan) => plan.id)).not.toContain(planId);
    const refused = await postSale(url, token, validSale({ planId }));
    expect(refused.status).toBe(422);
    await control(url, "POST", "reset");
    expect((await postSale(url, token, validSale({ planId }))).status).toBe(200);
  });

  it("refuses an id that is not a UUID", async () => {
    expect((await control(url, "POST", "plans/withdraw", { id: "plan-1" })).status).toBe(400);
  });
});
