import { existsSync, readFileSync } from "node:fs";
import { request as playwrightRequest } from "@playwright/test";
import { freePort } from "../bench/lib/processes";
import { formatCpf } from "../lib/format";
import { TEST_PROGRAMS } from "../scripts/debian-packages";
import { queryOnce, runPsqlFile, startTestPostgres, type TestPostgres } from "../scripts/test-postgres";
import { expect, test } from "./fixtures";
import { SaleFormPage } from "./pages/sale-form-page";
import { SignInPage } from "./pages/sign-in-page";
import { refusedStart, startAppInstance, type AppInstance } from "./support/app-instance";
import { makeTestCa, type TestCa } from "./support/certificates";
import { DEMO_AGENT } from "./support/environment";
import { startNginx, type Nginx } from "./support/nginx";
import { startOtlpReceiver, type OtlpReceiver } from "./support/otlp-receiver";
import { startPrometheus, type Prometheus } from "./support/prometheus";
import { freshCpf, sandboxControl, sandboxStats } from "./support/sandbox";

// The reference deployment (deploy/): Debian's nginx with deploy/nginx/partner-sales.conf terminating TLS in
// front of two app instances on one PostgreSQL, with the settings of deploy/app.env, driven by Chromium. Every
// hop that carries data is TLS, with certificates from a CA made at test time: the browser's, PostgreSQL's
// (deploy/postgres/pg_hba.conf), Prometheus's scrape through nginx and the traces' collector.
test.describe.configure({ mode: "serial" });

const AUTH_SECRET = "deployment-spec-auth-secret-0123456789abcdef";
const FORGED_CLIENT = "203.0.113.9";
const METRICS_TOKEN = "deployment-spec-metrics-token-0123456789ab";
const APP_ROLES = ["partner_sales_app", "partner_sales_owner"];

let ca: TestCa | undefined;
let postgres: TestPostgres | undefined;
let nginx: Nginx | undefined;
let prometheus: Prometheus | undefined;
let collector: OtlpReceiver | undefined;
let instances: AppInstance[] = [];
let databaseUrl = "";

/** deploy/app.env's value of `name`. */
function appEnv(name: string): string {
  const line = readFileSync("deploy/app.env", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith(`${name}=`));
  if (!line) throw new Error(`deploy/app.env has no ${name}`);
  return line.slice(name.length + 1);
}

/** deploy/app.env's URL in `name` (its role, its TLS parameters), on the test server with `password` and the test CA. */
function deployedUrl(name: "DATABASE_URL" | "DATABASE_MIGRATION_URL", password: string): string {
  const url = new URL(appEnv(name));
  // The name the server's certificate is for; loopback, so live mode would let it go without TLS: here it may not.
  url.hostname = "localhost";
  url.port = new URL(postgres!.url).port;
  url.password = password;
  url.searchParams.set("sslrootcert", ca!.caFile);
  return url.href;
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const missing = [TEST_PROGRAMS.nginx, TEST_PROGRAMS.openssl, TEST_PROGRAMS.prometheus]
    .map((program) => program.path)
    .filter((path) => !existsSync(path));
  if (missing.length > 0) {
    if (process.env.CI)
      throw new Error(`The deployment test needs nginx, openssl and Prometheus (${missing.join(", ")}).`);
    return;
  }
  ca = makeTestCa();
  const localhost = ca.issue("localhost", ["DNS:localhost"]);
  // The app's roles as the deploy file has them: TLS only, from the instances' address (here this machine's).
  let hbaRules = readFileSync("deploy/postgres/pg_hba.conf", "utf8");
  if (!hbaRules.includes(" 10.0.0.0/24 ")) throw new Error("deploy/postgres/pg_hba.conf: no 10.0.0.0/24");
  hbaRules = hbaRules.replace(" 10.0.0.0/24 ", " 127.0.0.1/32 ");
  postgres = await startTestPostgres({ tls: { ...localhost, hbaRules } });
  if (!postgres) {
    if (process.env.CI) throw new Error("The deployment test needs PostgreSQL.");
    return;
  }
  // The database and its two roles as docs/production.md has an operator make them: the app owns nothing.
  runPsqlFile(postgres.url, "deploy/postgres/roles.sql", {
    owner_password: "owner-secret",
    app_password: "app-secret",
  });
  databaseUrl = deployedUrl("DATABASE_URL", "app-secret");
  collector = await startOtlpReceiver({ tls: localhost });

  const httpsPort = await freePort();
  const ports: [number, number] = [await freePort(), await freePort()];
  // deploy/app.env, but for the provider (the e2e sandbox), the addresses and the CA.
  const settings = {
    DATABASE_URL: databaseUrl,
    DATABASE_MIGRATION_URL: deployedUrl("DATABASE_MIGRATION_URL", "owner-secret"),
    AUTH_URL: `https://localhost:${httpsPort}`,
    AUTH_SECRET,
    // nginx's address as the instances see it (e2e/support/nginx.ts binds it to 127.0.0.2).
    TRUSTED_PROXIES: "127.0.0.2",
    METRICS_TOKEN,
    DRAIN_DELAY_SECONDS: "0",
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_CERTIFICATE: ca.caFile,
    OTEL_BSP_SCHEDULE_DELAY: "200",
    OTEL_SERVICE_NAME: "",
  };
  instances = await Promise.all(ports.map((port) => startAppInstance(port, settings, { host: "127.0.0.1" })));
  nginx = await startNginx(ports, httpsPort, localhost);
  prometheus = await startPrometheus(nginx.metricsUrls, METRICS_TOKEN, { caFile: ca.caFile });
});

test.afterAll(async () => {
  await sandboxControl("POST", "latency", { ms: 0, target: "sale" });
  await prometheus?.stop();
  await nginx?.stop();
  await Promise.all(instances.map((instance) => instance.stop()));
  await collector?.close();
  postgres?.stop();
  ca?.remove();
});

test.beforeEach(() => {
  test.skip(
    !postgres,
    "nginx, openssl, Prometheus or PostgreSQL cannot be had here (npm test installs them as root)",
  );
});

async function throttleKeys(): Promise<string[]> {
  const rows = await queryOnce<{ key: string }>(databaseUrl, "select key from sign_in_throttle");
  return rows.map((row) => row.key);
}

test("the proxy's edges: http goes to https, bodies past the app's limit are refused with its error, no metrics", async () => {
  const redirect = await fetch(`${nginx!.httpUrl}/sales`, { redirect: "manual" });
  expect(redirect.status).toBe(301);
  expect(redirect.headers.get("location")).toMatch(/^https:\/\/[^/]+\/sales$/);

  const client = await playwrightRequest.newContext({ baseURL: nginx!.url, ignoreHTTPSErrors: true });
  const tooLarge = await client.post("/api/sales", {
    data: "x".repeat(40 * 1024),
    headers: { "content-type": "application/json" },
  });
  expect(tooLarge.status()).toBe(413);
  expect(await tooLarge.json()).toMatchObject({ error: "payload_too_large" });
  // The token works on an instance's own address (where Prometheus scrapes); through nginx nothing answers.
  const bearer = { Authorization: `Bearer ${METRICS_TOKEN}` };
  expect((await fetch(`${instances[0]!.url}/api/metrics`, { headers: bearer })).status).toBe(200);
  const metrics = await client.get("/api/metrics", { headers: bearer });
  expect(metrics.status()).toBe(404);
  expect(metrics.headers()["content-type"]).not.toContain("json");
  expect((await client.get("/api/health")).status()).toBe(200);
  await client.dispose();

  // The instances work as the app's own role, which owns nothing: the audit trail is not theirs to rewrite.
  for (const instance of instances) expect(instance.log()).not.toContain("db.app_role_owns_audit_trail");
  await expect(queryOnce(databaseUrl, "alter table audit_events disable trigger all")).rejects.toThrow(
    /must be owner/,
  );
  await expect(queryOnce(databaseUrl, "delete from audit_events")).rejects.toThrow(/permission denied/);

  // Another name than the app's (here the bare address): no redirect, no answer at all.
  const stranger = new URL(nginx!.httpUrl);
  stranger.hostname = "127.0.0.1";
  await expect(fetch(stranger, { redirect: "manual" })).rejects.toThrow();
});

test("PostgreSQL over verified TLS: every connection of the app's roles is encrypted; a plain one, another CA or another host name is refused", async () => {
  // What deploy/app.env asks for, and the instances were given.
  for (const name of ["DATABASE_URL", "DATABASE_MIGRATION_URL"]) {
    expect(new URL(appEnv(name)).searchParams.get("sslmode"), name).toBe("verify-full");
  }
  // Each instance reads the database for its readiness: a connection of the app's role each, at least.
  for (const instance of instances) expect((await fetch(`${instance.url}/api/health`)).status).toBe(200);
  const connections = await queryOnce<{ usename: string; ssl: boolean }>(
    postgres!.url,
    "select usename, ssl from pg_stat_ssl join pg_stat_activity using (pid) where usename = any($1)",
    [APP_ROLES],
  );
  expect(connections.length).toBeGreaterThanOrEqual(instances.length);
  expect(connections.filter((connection) => !connection.ssl)).toEqual([]);

  // pg_hba.conf refuses the app's role without TLS, whatever the password.
  const plain = new URL(databaseUrl);
  plain.search = "";
  await expect(queryOnce(plain.href, "select 1")).rejects.toThrow(/no encryption/);
  // verify-full checks the host name (the certificate is for localhost)…
  const byAddress = new URL(databaseUrl);
  byAddress.hostname = "127.0.0.1";
  await expect(queryOnce(byAddress.href, "select 1")).rejects.toThrow(
    /does not match certificate's altnames/,
  );
  // …and the chain, against sslrootcert's CA alone.
  const stranger = makeTestCa();
  try {
    const otherCa = new URL(databaseUrl);
    otherCa.searchParams.set("sslrootcert", stranger.caFile);
    await expect(queryOnce(otherCa.href, "select 1")).rejects.toThrow(
      /unable to verify the first certificate/,
    );
  } finally {
    stranger.remove();
  }
});

test("live mode refuses a PostgreSQL URL to another machine without verified TLS, at start-up, saying why", async () => {
  const { code, output } = await refusedStart(await freePort(), {
    PARTNER_API_BASE_URL: "https://api.provider.example",
    PARTNER_CLIENT_ID: "deployment-spec",
    PARTNER_CLIENT_SECRET: "deployment-spec-secret",
    AUTH_URL: "https://vendas.partner.example",
    AUTH_SECRET,
    DATABASE_URL: "postgres://partner_sales_app:app-secret@db.internal:5432/partner_sales",
  });
  expect(code).toBe(1);
  expect(output).toContain(
    "Configuration error: DATABASE_URL: must ask for verified TLS (sslmode=verify-full, with sslrootcert=<CA file>)",
  );
  expect(output).not.toContain("app-secret");
});

test("observability over TLS: Prometheus scrapes each instance through nginx with the test CA; traces reach an https collector", async () => {
  // docs/production.md's scrape configuration: https, the CA, the bearer token, one target per instance.
  await expect
    .poll(() => prometheus!.value('count(up{job="partner-sales"} == 1)'), { timeout: 30_000 })
    .toBe(instances.length);
  await expect
    .poll(() => prometheus!.value('count(partner_sales_database_up{job="partner-sales"} == 1)'))
    .toBe(instances.length);
  // nginx's metrics server passes the token on and nothing else: without it the instance refuses.
  const client = await playwrightRequest.newContext({ ignoreHTTPSErrors: true });
  expect((await client.get(nginx!.metricsUrls[0]!)).status()).toBe(401);
  expect((await client.get(new URL("/api/metrics", nginx!.metricsUrls[0]).href)).status()).toBe(404);
  await client.dispose();

  // Every request above left spans; the exporter trusts OTEL_EXPORTER_OTLP_CERTIFICATE's CA for the collector.
  await expect.poll(() => collector!.spans().length, { timeout: 30_000 }).toBeGreaterThan(0);
});

test("a history search for a CPF through nginx: in the address, never in nginx's logs", async ({
  browser,
}) => {
  const context = await browser.newContext({ baseURL: nginx!.url, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  const cpf = freshCpf();
  await page.goto("/sales");
  const search = page.getByRole("searchbox", { name: "Buscar" });
  await search.fill(formatCpf(cpf));
  await page.getByRole("button", { name: "Filtrar" }).click();
  // Bookmarkable: the search is in the address.
  await expect(page).toHaveURL(/[?&]q=/);
  await expect(search).toHaveValue(formatCpf(cpf));
  await page.goto(`/sales?q=${cpf}`);
  await expect(page.getByRole("main")).toBeVisible();
  // The same filter as a download.
  expect((await context.request.get(`/sales/export?q=${cpf}`)).status()).toBe(200);
  await context.close();

  const accessLog = nginx!.accessLog();
  expect(accessLog).toMatch(/"GET \/sales HTTP\/2\.0" 200 /);
  expect(accessLog).toMatch(/"GET \/sales\/export HTTP\/[\d.]+" 200 /);
  for (const written of [accessLog, nginx!.errorLog()]) {
    for (const form of [cpf, formatCpf(cpf), encodeURIComponent(formatCpf(cpf))]) {
      expect(written).not.toContain(form);
    }
    expect(written).not.toContain("q=");
  }
});

test("nginx limits request rates per address: a burst of exports past its figure gets 429, the rest goes on", async () => {
  const client = await playwrightRequest.newContext({ baseURL: nginx!.url, ignoreHTTPSErrors: true });
  // 30 exports at once, then one every 2 s: 60 at once from one address pass 31 (more only if this took a minute).
  const exports = await Promise.all(
    Array.from({ length: 60 }, () => client.get("/sales/export", { maxRedirects: 0 })),
  );
  const refused = exports.filter((answer) => answer.status() === 429);
  expect(exports.length - refused.length).toBeGreaterThanOrEqual(31);
  expect(refused.length).toBeGreaterThan(0);
  expect(await refused[0]!.json()).toMatchObject({ error: "rate_limited" });
  expect(refused[0]!.headers()["retry-after"]).toBe("2");
  expect(nginx!.accessLog()).toMatch(/"GET \/sales\/export HTTP\/1\.1" 429 /);

  // The same address, other paths and ordinary amounts: a floor's history views at once, a sign-in page.
  const history = await Promise.all(
    Array.from({ length: 40 }, () => client.get("/sales", { maxRedirects: 0 })),
  );
  expect(history.filter((answer) => answer.status() === 429)).toEqual([]);
  expect((await client.get("/sign-in")).status()).toBe(200);
  expect((await client.get("/api/health")).status()).toBe(200);
  await client.dispose();
});

test("selling through https in Chromium: the real client address, Secure cookies and HSTS; one instance killed, selling goes on with the same session; a SIGTERMed instance finishes the sale in flight", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  await sandboxControl("POST", "reset");
  const context = await browser.newContext({
    baseURL: nginx!.url,
    ignoreHTTPSErrors: true,
    // What a client may claim: the app must read the address nginx saw instead.
    extraHTTPHeaders: { "X-Forwarded-For": FORGED_CLIENT },
  });
  const page = await context.newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(DEMO_AGENT.email, "not-the-password");
  await expect(signIn.alert()).toBeVisible();
  // The browser's address, as nginx saw it: not nginx's own (127.0.0.2), not what the browser claimed.
  const keys = await throttleKeys();
  expect(keys).toContain("address:127.0.0.1");
  expect(keys.join(" ")).not.toContain("127.0.0.2");
  expect(keys.join(" ")).not.toContain(FORGED_CLIENT);

  await signIn.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  const form = new SaleFormPage(page);
  const first = await page.goto("/");
  expect(first!.headers()["strict-transport-security"]).toMatch(/max-age=\d+/);
  expect(
    await page.evaluate(
      () => (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).nextHopProtocol,
    ),
  ).toBe("h2");
  const session = (await context.cookies()).find((cookie) => cookie.name.includes("session-token"));
  expect(session?.name).toMatch(/^__Host-/);
  expect(session?.secure).toBe(true);

  const sell = async (name: string) => {
    await form.fill({
      cpf: freshCpf(),
      name,
      email: "cliente@example.com",
      phone: "31987654321",
      plan: "Plano Família",
    });
    await form.submit().click();
  };
  await sell("Primeira Venda");
  await expect(form.status()).toHaveAttribute("data-status", "accepted");

  // One instance dies (a crash, a kill -9): nginx sends the next requests to the other, the session holds.
  instances[0]!.server.child.kill("SIGKILL");
  await sell("Segunda Venda");
  await expect(form.status()).toHaveAttribute("data-status", "accepted");
  await page.goto("/sales");
  await expect(page.getByRole("main").getByText("Segunda Venda")).toBeVisible();

  // The other is stopped (SIGTERM) while a sale waits on the provider: that sale still gets its answer.
  await form.goto();
  await sandboxControl("POST", "latency", { ms: 3_000, target: "sale" });
  const before = (await sandboxStats()).saleRequests;
  await sell("Terceira Venda");
  await expect
    .poll(async () => (await sandboxStats()).saleRequests, { timeout: 20_000, intervals: [100] })
    .toBe(before + 1);
  const exited = new Promise<number | null>((resolve) => instances[1]!.server.child.once("exit", resolve));
  instances[1]!.server.child.kill("SIGTERM");
  // Still on its way when the server is stopped: otherwise this would pass without a sale in flight.
  await expect(form.status()).toHaveCount(0, { timeout: 1_000 });
  await expect(form.status()).toHaveAttribute("data-status", "accepted", { timeout: 20_000 });
  expect(await exited).toBe(0);
  await context.close();
});
