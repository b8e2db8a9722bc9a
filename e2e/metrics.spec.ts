import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { request as playwrightRequest } from "@playwright/test";
import { TEST_PROGRAMS } from "../scripts/debian-packages";
import { expect, test } from "./fixtures";
import { DEMO_AGENT, E2E_METRICS_TOKEN } from "./support/environment";
import { scrape } from "./support/metrics";
import { startPrometheus, type Prometheus } from "./support/prometheus";
import { apiSale, freshCpf, sandboxControl } from "./support/sandbox";
import { sellAgain, sellOverApi } from "./support/sell";

// Debian's Prometheus scrapes the shared e2e app as an operator's would; the counters are read back through
// Prometheus's own query API, so the exposition format, the token and the names are all what a real one sees.
test.describe.configure({ mode: "serial" });

let prometheus: Prometheus | undefined;

test.beforeAll(async ({ baseURL }) => {
  test.setTimeout(120_000);
  if (!existsSync(TEST_PROGRAMS.prometheus.path)) {
    if (process.env.CI)
      throw new Error("Prometheus is needed for the metrics tests under CI (npm test installs it).");
    return;
  }
  prometheus = await startPrometheus([new URL("/api/metrics", baseURL).href], E2E_METRICS_TOKEN);
});

test.afterAll(async () => {
  await prometheus?.stop();
});

test.beforeEach(async () => {
  test.skip(
    !prometheus,
    "Debian's prometheus cannot be had here (npm test installs it as root with apt-get)",
  );
  await sandboxControl("POST", "reset");
});

test("without the token /api/metrics is 401; with it, Prometheus scrapes the app", async ({ baseURL }) => {
  for (const authorization of [undefined, "Bearer not-the-token", `Basic ${E2E_METRICS_TOKEN}`]) {
    const response = await fetch(`${baseURL}/api/metrics`, {
      headers: authorization ? { Authorization: authorization } : {},
    });
    expect(response.status, authorization ?? "no header").toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(await response.json()).toMatchObject({ error: "metrics_token_required" });
  }
  await expect.poll(() => prometheus!.value('up{job="partner-sales"}'), { timeout: 30_000 }).toBe(1);
  // Node.js's own process metrics come with the app's.
  expect(await prometheus!.value('process_resident_memory_bytes{job="partner-sales"}')).toBeGreaterThan(0);
  expect(await prometheus!.value('partner_sales_database_up{job="partner-sales"}')).toBe(1);
  // Every request to the database is counted (the bench divides them by the sales).
  expect(await prometheus!.value('partner_sales_db_round_trips_total{job="partner-sales"}')).toBeGreaterThan(
    0,
  );
});

test("sales of each outcome, token exchanges, provider timings, open sales and refused sign-ins read back through Prometheus", async ({
  signedIn: page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const before = await scrape(baseURL!);
  const was = (series: string) => before.get(series) ?? 0;

  const accepted = await sellOverApi(page);
  expect(accepted.status).toBe("accepted");
  expect((await sellAgain(page, accepted)).status).toBe("accepted"); // a replay
  const customer = freshCpf();
  expect((await sellOverApi(page, { customerDocument: customer })).status).toBe("accepted");
  // The provider refuses the same customer a plan twice.
  expect((await sellOverApi(page, { customerDocument: customer })).status).toBe("rejected");
  await sandboxControl("POST", "faults", { kind: "500", target: "sale" });
  expect((await sellOverApi(page)).status).toBe("unknown");
  // Nothing sent: the token was revoked and the exchange that would renew it fails.
  await sandboxControl("POST", "tokens/revoke");
  await sandboxControl("POST", "faults", { kind: "503", target: "token" });
  expect((await sellOverApi(page)).status).toBe("failed");
  const invalid = await page.request.post("/api/sales", {
    data: apiSale({ customerDocument: "111.111.111-11" }),
    headers: { "Idempotency-Key": randomUUID() },
  });
  expect(invalid.status()).toBe(400);
  const stranger = await playwrightRequest.newContext({ baseURL });
  const { csrfToken } = (await (await stranger.get("/api/auth/csrf")).json()) as { csrfToken: string };
  await stranger.post("/api/auth/callback/credentials", {
    form: { email: DEMO_AGENT.email, password: "not-the-password", csrfToken },
    maxRedirects: 0,
  });
  await stranger.dispose();

  const job = 'job="partner-sales"';
  const expected: [string, string, number][] = [
    [
      `partner_sales_sales_total{${job},outcome="accepted"}`,
      'partner_sales_sales_total{outcome="accepted"}',
      2,
    ],
    [
      `partner_sales_sales_total{${job},outcome="replayed"}`,
      'partner_sales_sales_total{outcome="replayed"}',
      1,
    ],
    [
      `partner_sales_sales_total{${job},outcome="rejected"}`,
      'partner_sales_sales_total{outcome="rejected"}',
      1,
    ],
    [
      `partner_sales_sales_total{${job},outcome="unknown"}`,
      'partner_sales_sales_total{outcome="unknown"}',
      1,
    ],
    [`partner_sales_sales_total{${job},outcome="failed"}`, 'partner_sales_sales_total{outcome="failed"}', 1],
    [
      `partner_sales_sales_total{${job},outcome="invalid"}`,
      'partner_sales_sales_total{outcome="invalid"}',
      1,
    ],
    [
      `partner_sales_token_exchanges_total{${job},result="partner_api.token_unavailable"}`,
      'partner_sales_token_exchanges_total{result="partner_api.token_unavailable"}',
      1,
    ],
    [
      `partner_sales_upstream_request_duration_seconds_count{${job},endpoint="sale",status_class="5xx"}`,
      'partner_sales_upstream_request_duration_seconds_count{endpoint="sale",status_class="5xx"}',
      1,
    ],
    [
      `partner_sales_upstream_request_duration_seconds_count{${job},endpoint="sale",status_class="4xx"}`,
      'partner_sales_upstream_request_duration_seconds_count{endpoint="sale",status_class="4xx"}',
      2, // the refused customer, and the revoked token's 401
    ],
    [
      `partner_sales_upstream_request_duration_seconds_count{${job},endpoint="token",status_class="5xx"}`,
      'partner_sales_upstream_request_duration_seconds_count{endpoint="token",status_class="5xx"}',
      1,
    ],
    [
      `partner_sales_sale_duration_seconds_count{${job},outcome="accepted"}`,
      'partner_sales_sale_duration_seconds_count{outcome="accepted"}',
      2,
    ],
    [`partner_sales_open_sales{${job},status="unknown"}`, 'partner_sales_open_sales{status="unknown"}', 1],
    [
      `partner_sales_sign_in_refusals_total{${job},method="password",reason="invalid"}`,
      'partner_sales_sign_in_refusals_total{method="password",reason="invalid"}',
      1,
    ],
  ];
  for (const [query, series, increase] of expected) {
    await expect
      .poll(() => prometheus!.value(query), { message: query, timeout: 30_000 })
      .toBe(was(series) + increase);
  }
  // Nothing about a customer, an agent or a sale is a label.
  const exposition = [...(await scrape(baseURL!)).keys()].join("\n");
  expect(exposition).not.toContain(customer);
  expect(exposition).not.toContain(accepted.submissionId);
  expect(exposition).not.toContain(DEMO_AGENT.email);
});
