import { request as playwrightRequest } from "@playwright/test";
import { freePort } from "../bench/lib/processes";
import { expect, test } from "./fixtures";
import { apiKeyFromCli, operatorTool } from "./support/agents-cli";
import { startAppInstance } from "./support/app-instance";
import { DEMO_AGENT } from "./support/environment";
import { apiSale, sandboxControl, sandboxStats } from "./support/sandbox";

// The integrations' API, /api/v1, with keys an operator made (npm run api-keys), through plain HTTP as a partner's
// CRM would call it: no browser, no cookies.

const newKey = (name: string, scopes: string) =>
  apiKeyFromCli(["create", "--name", name, "--scopes", scopes]);

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

test("GET /api/v1/plans: the catalogue for a key with plans:read, refusals with WWW-Authenticate", async ({
  request,
}) => {
  const suffix = crypto.randomUUID().slice(0, 6);
  const reader = await newKey(`crm-${suffix}`, "plans:read");
  const answer = await request.get("/api/v1/plans", { headers: bearer(reader) });
  expect(answer.status()).toBe(200);
  expect(answer.headers()["cache-control"]).toBe("no-store");
  const body = (await answer.json()) as { catalogue: string; plans: { id: string; name: string }[] };
  expect(body.catalogue).toBe("configured");
  expect(body.plans.length).toBeGreaterThan(0);

  const none = await request.get("/api/v1/plans");
  expect(none.status()).toBe(401);
  expect(none.headers()["www-authenticate"]).toBe('Bearer realm="partner-sales"');
  expect(await none.json()).toMatchObject({ error: "api_key_required" });

  const writer = await newKey(`dialer-${suffix}`, "sales:write");
  const outOfScope = await request.get("/api/v1/plans", { headers: bearer(writer) });
  expect(outOfScope.status()).toBe(403);
  expect(outOfScope.headers()["www-authenticate"]).toContain(
    'error="insufficient_scope", scope="plans:read"',
  );

  const revoked = await operatorTool("api-keys", ["revoke", "--name", `crm-${suffix}`]);
  expect(revoked.status).toBe(0);
  const afterRevoke = await request.get("/api/v1/plans", { headers: bearer(reader) });
  expect(afterRevoke.status()).toBe(401);
  expect(await afterRevoke.json()).toMatchObject({ error: "api_key_invalid" });
});

test("an unknown /api/v1 path is the API's JSON 404, whatever the method", async ({ request }) => {
  for (const [method, path] of [
    ["GET", "/api/v1/nothing/here"],
    ["POST", "/api/v1/nothing"],
    ["DELETE", "/api/v1/nothing/here"],
    ["GET", "/api/v1"],
  ] as const) {
    const answer = await request.fetch(path, { method });
    expect(answer.status()).toBe(404);
    expect(await answer.json()).toMatchObject({ error: "api_not_found" });
    expect(answer.headers()["x-content-type-options"]).toBe("nosniff");
  }
});

test("an integration's keys share its budget: past API_READS_PER_MINUTE, 429 with Retry-After", async ({}, testInfo) => {
  testInfo.setTimeout(90_000);
  const instance = await startAppInstance(await freePort(), { API_READS_PER_MINUTE: "2" });
  try {
    const env = { DATA_DIR: instance.dataDir };
    const keyOf = (args: string[]) => apiKeyFromCli(args, env);
    const first = await keyOf(["create", "--name", "crm", "--scopes", "plans:read"]);
    const second = await keyOf(["rotate", "--name", "crm"]);
    const client = await playwrightRequest.newContext({ baseURL: instance.url });
    const statuses = [];
    for (const key of [first, second, first]) {
      statuses.push((await client.get("/api/v1/plans", { headers: bearer(key) })).status());
    }
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await client.get("/api/v1/plans", { headers: bearer(second) });
    expect(Number(refused.headers()["retry-after"])).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: "rate_limited" });
    expect(instance.log()).toContain('"reason":"rate_limited"');
    await client.dispose();
  } finally {
    await instance.stop();
  }
});

test.describe("POST /api/v1/sales and the reads", () => {
  // The sandbox counts what reached the provider: from zero for each test.
  test.beforeEach(() => sandboxControl("POST", "reset"));

  test("a key sells as its integration, replays its Idempotency-Key and reads the sale back without customer data", async ({
    request,
  }) => {
    const name = `crm-${crypto.randomUUID().slice(0, 6)}`;
    const key = await newKey(name, "sales:write,sales:read");
    const submissionId = crypto.randomUUID();
    const sale = apiSale({ externalId: `CRM-${submissionId.slice(0, 8)}` });
    const headers = { ...bearer(key), "Idempotency-Key": submissionId };
    const first = await request.post("/api/v1/sales", { data: sale, headers });
    expect(first.status()).toBe(201);
    expect(first.headers()["location"]).toBe(`/api/v1/sales/${submissionId}`);
    // The provider's words only for a key that may read customer data.
    expect(await first.json()).toMatchObject({
      submissionId,
      status: "accepted",
      replay: false,
      upstreamMessage: null,
    });
    const again = await request.post("/api/v1/sales", { data: sale, headers });
    expect(again.status()).toBe(200);
    expect(await again.json()).toMatchObject({ submissionId, status: "accepted", replay: true });
    expect((await sandboxStats()).saleRequests).toBe(1);

    const read = await request.get(`/api/v1/sales/${submissionId}`, { headers: bearer(key) });
    expect(read.status()).toBe(200);
    const body = await read.json();
    expect(body).toMatchObject({
      submissionId,
      status: "accepted",
      externalId: sale.externalId,
      seller: { agent: null, integration: name },
      provider: { httpStatus: 200, message: null },
      settlement: null,
    });
    expect(body).not.toHaveProperty("customer");
    expect(JSON.stringify(body)).not.toContain(String(sale.customerDocument));

    const found = await request.get(`/api/v1/sales?externalId=${sale.externalId}`, { headers: bearer(key) });
    expect(await found.json()).toMatchObject({ sales: [{ submissionId }], nextCursor: null });
    const byProtocol = await request.get(`/api/v1/sales?protocol=${encodeURIComponent(body.protocol)}`, {
      headers: bearer(key),
    });
    expect((await byProtocol.json()).sales).toHaveLength(1);

    const missing = await request.get(`/api/v1/sales/${crypto.randomUUID()}`, { headers: bearer(key) });
    expect(missing.status()).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "sale_not_found" });
  });

  test("a key with sales:on-behalf sells for an active agent; without it, or naming nobody, nothing is sent", async ({
    request,
  }) => {
    const suffix = crypto.randomUUID().slice(0, 6);
    const dialer = await newKey(
      `discador-${suffix}`,
      "sales:write,sales:on-behalf,sales:read,sales:read-customer",
    );
    const plain = await newKey(`portal-${suffix}`, "sales:write");
    const post = (key: string, data: Record<string, unknown>) =>
      request.post("/api/v1/sales", {
        data,
        headers: { ...bearer(key), "Idempotency-Key": crypto.randomUUID() },
      });

    const outOfScope = await post(plain, apiSale({ agent: { email: DEMO_AGENT.email } }));
    expect(outOfScope.status()).toBe(403);
    expect(outOfScope.headers()["www-authenticate"]).toContain('scope="sales:on-behalf"');
    const nobody = await post(dialer, apiSale({ agent: { email: `ninguem-${suffix}@demo.local` } }));
    expect(nobody.status()).toBe(422);
    expect(await nobody.json()).toMatchObject({ error: "agent_unknown" });
    const malformed = await post(dialer, apiSale({ agent: "agente@demo.local" }));
    expect(malformed.status()).toBe(400);
    expect(await malformed.json()).toMatchObject({
      error: "invalid_fields",
      fieldErrors: { agent: expect.any(String) },
    });

    expect((await sandboxStats()).saleRequests).toBe(0);

    // An agent who leaves: a new sale for them is refused, one recorded before is still answered from the ledger.
    const leaving = `saindo-${suffix}@demo.local`;
    expect(
      (await operatorTool("agents", ["add", "--email", leaving, "--name", "Saindo", "--no-password"])).status,
    ).toBe(0);
    const before = { ...bearer(dialer), "Idempotency-Key": crypto.randomUUID() };
    const earlier = apiSale({ agent: { email: leaving } });
    expect((await request.post("/api/v1/sales", { data: earlier, headers: before })).status()).toBe(201);
    expect((await operatorTool("agents", ["disable", "--email", leaving])).status).toBe(0);
    const disabled = await post(dialer, apiSale({ agent: { email: leaving } }));
    expect(disabled.status()).toBe(422);
    expect(await disabled.json()).toMatchObject({ error: "agent_disabled" });
    const replayed = await request.post("/api/v1/sales", { data: earlier, headers: before });
    expect(replayed.status()).toBe(200);
    expect(await replayed.json()).toMatchObject({ status: "accepted", replay: true });
    expect((await sandboxStats()).saleRequests).toBe(1);

    const sold = await post(dialer, apiSale({ agent: { email: DEMO_AGENT.email.toUpperCase() } }));
    expect(sold.status()).toBe(201);
    const { submissionId } = await sold.json();
    const read = await request.get(`/api/v1/sales/${submissionId}`, { headers: bearer(dialer) });
    const sale = await read.json();
    expect(sale.seller).toEqual({
      agent: { id: expect.any(String), name: DEMO_AGENT.name },
      integration: `discador-${suffix}`,
    });
    expect(sale.customer).toMatchObject({ name: "Carla Mendes" });
    expect(sale.provider.message).toEqual(expect.any(String));
  });

  test("wrong methods, queries and cursors get the API's JSON errors", async ({ request }) => {
    const key = await newKey(`leitor-${crypto.randomUUID().slice(0, 6)}`, "sales:read");
    const wrongMethod = await request.delete("/api/v1/sales", { headers: bearer(key) });
    expect(wrongMethod.status()).toBe(405);
    expect(wrongMethod.headers()["allow"]).toBe("GET, POST");
    expect(await wrongMethod.json()).toMatchObject({ error: "method_not_allowed" });
    const sold = await request.post("/api/v1/sales", {
      data: apiSale(),
      headers: { ...bearer(key), "Idempotency-Key": crypto.randomUUID() },
    });
    expect(sold.status()).toBe(403);

    for (const [query, parameter] of [
      ["status=sold", "status"],
      ["limit=1000", "limit"],
      ["cursor=bm90LWEtY3Vyc29y", "cursor"],
      ["updatedAfter=ontem", "updatedAfter"],
      ["updatedAfter=2026-01-01T00:00:00Z&status=accepted", "status"],
      ["colour=blue", "colour"],
      ["status=accepted&status=failed", "status"],
    ] as const) {
      const answer = await request.get(`/api/v1/sales?${query}`, { headers: bearer(key) });
      expect(answer.status(), query).toBe(400);
      const body = await answer.json();
      expect(body, query).toMatchObject({
        error: "invalid_query",
        fieldErrors: { [parameter]: expect.any(String) },
      });
    }
  });
});
