import { request as playwrightRequest } from "@playwright/test";
import { freePort } from "../bench/lib/processes";
import { expect, test } from "./fixtures";
import { operatorTool } from "./support/agents-cli";
import { startAppInstance } from "./support/app-instance";

// The integrations' API, /api/v1, with keys an operator made (npm run api-keys), through plain HTTP as a partner's
// CRM would call it: no browser, no cookies.

async function newKey(name: string, scopes: string): Promise<string> {
  const made = await operatorTool("api-keys", ["create", "--name", name, "--scopes", scopes]);
  expect(made.status, made.stderr).toBe(0);
  return /Key: (psk_\S+)/.exec(made.stdout)![1]!;
}

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
    const keyOf = async (args: string[]) => {
      const made = await operatorTool("api-keys", args, env);
      expect(made.status, made.stderr).toBe(0);
      return /Key: (psk_\S+)/.exec(made.stdout)![1]!;
    };
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
