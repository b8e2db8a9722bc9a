import { randomUUID } from "node:crypto";
import { request as httpRequest, type IncomingMessage } from "node:http";
import type { APIRequestContext } from "@playwright/test";
import pg from "pg";
import { freePort } from "../bench/lib/processes";
import { DEMO_ACCOUNTS, DEMO_PASSWORD } from "@/lib/auth/demo-account-list";
import { userMessageFor } from "@/lib/errors";
import { SEARCH_TOO_BROAD_MESSAGE } from "@/lib/sales/history-filter";
import { expect, test } from "./fixtures";
import { SaleFormPage } from "./pages/sale-form-page";
import { SignInPage } from "./pages/sign-in-page";
import { startAppInstance, type AppInstance } from "./support/app-instance";
import { apiSale, freshCpf } from "./support/sandbox";
import { signedInRequest } from "./support/sign-in-over-http";

// The limits on what one person may ask (lib/dal/limits.ts), on an instance of their own with low ceilings: each
// refusal's status, words, security-log line and metric, and everyone else going on meanwhile.
test.describe.configure({ mode: "serial" });

const METRICS_TOKEN = "limits-spec-metrics-token-0123456789abcdef";
const LIMITS = {
  SALES_PER_AGENT_PER_MINUTE: "8",
  KNOWN_CUSTOMER_CHECKS_PER_HOUR: "2",
  HISTORY_PAGES_PER_MINUTE: "4",
};
const account = (role: "agent" | "supervisor") => ({
  email: DEMO_ACCOUNTS.find((each) => each.role === role)!.email,
  password: DEMO_PASSWORD,
});
const AGENT = account("agent");
const SUPERVISOR = account("supervisor");

let app: AppInstance;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  app = await startAppInstance(await freePort(), { ...LIMITS, METRICS_TOKEN });
});

test.afterAll(async () => {
  await app?.stop();
});

/** The instance's `access.refused` lines for `limit`. */
function limitLines(limit: string): Record<string, unknown>[] {
  return app
    .log()
    .split("\n")
    .filter((line) => line.includes('"rate_limited"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.event === "access.refused" && line.limit === limit);
}

async function metric(name: string): Promise<number> {
  const text = await (
    await fetch(`${app.url}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const line = text.split("\n").find((each) => each.startsWith(`${name} `));
  return line ? Number(line.split(" ")[1]) : 0;
}

const limited = (limit: string) => metric(`partner_sales_limited_requests_total{limit="${limit}"}`);

async function sell(context: APIRequestContext) {
  return context.post("/api/sales", { data: apiSale(), headers: { "Idempotency-Key": randomUUID() } });
}

test("an agent's sales past the ceiling get 429 and nothing is sent; another agent still sells", async () => {
  const agent = await signedInRequest(app.url, AGENT);
  const supervisor = await signedInRequest(app.url, SUPERVISOR);
  for (let sale = 0; sale < 8; sale += 1) expect((await sell(agent)).status()).toBe(201);
  const refused = await sell(agent);
  expect(refused.status()).toBe(429);
  const wait = Number(refused.headers()["retry-after"]);
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(60);
  expect(await refused.json()).toEqual({ error: "rate_limited", message: userMessageFor("rate_limited") });
  // Meanwhile, another person's sale goes through.
  expect((await sell(supervisor)).status()).toBe(201);

  expect(await limited("sales")).toBe(1);
  expect(await metric('partner_sales_sales_total{outcome="limited"}')).toBe(1);
  expect(await metric('partner_sales_sales_total{outcome="accepted"}')).toBe(9);
  const [line] = limitLines("sales");
  expect(line).toMatchObject({
    level: "warn",
    category: "security",
    reason: "rate_limited",
    outcome: "failure",
  });
  expect(typeof line!.agentId).toBe("string");
  await Promise.all([agent.dispose(), supervisor.dispose()]);
});

test("the known-customer check past its ceiling is refused in the form, in pt-BR", async ({ browser }) => {
  const page = await (await browser.newContext({ baseURL: app.url })).newPage();
  await new SignInPage(page).goto();
  await new SignInPage(page).signIn(SUPERVISOR.email, SUPERVISOR.password);
  const form = new SaleFormPage(page);
  const sale = () => ({
    cpf: freshCpf(),
    name: "Maria Souza",
    email: "maria@example.com",
    phone: "(11) 98765-4321",
    plan: "Plano Família",
  });
  // Each form sale is checked against the ledger first: two checks an hour here.
  for (let check = 0; check < 2; check += 1) {
    await form.goto();
    await form.fill(sale());
    await form.submit().click();
    await expect(form.status()).toContainText("Venda aceita");
  }
  await form.goto();
  await form.fill(sale());
  await form.submit().click();
  await expect(form.alert()).toContainText(/Muitos pedidos em pouco tempo\. Aguarde \d+ minutos?/);
  expect(await limited("known_customer")).toBe(1);
  expect(limitLines("known_customer")).toHaveLength(1);
  await page.context().close();
});

test("a search no index can serve is refused; history pages past the ceiling say how long to wait", async ({
  browser,
}) => {
  const page = await (await browser.newContext({ baseURL: app.url })).newPage();
  await new SignInPage(page).goto();
  await new SignInPage(page).signIn(AGENT.email, AGENT.password);
  await page.goto(`/sales?q=${encodeURIComponent("a b c")}`);
  await expect(page.getByText(SEARCH_TOO_BROAD_MESSAGE)).toBeVisible();
  const exported = await page.request.get(`/sales/export?q=${encodeURIComponent("@.-")}`);
  expect(exported.status()).toBe(400);
  expect(await exported.json()).toMatchObject({
    error: "invalid_fields",
    fieldErrors: { q: SEARCH_TOO_BROAD_MESSAGE },
  });

  for (let visit = 0; visit < 3; visit += 1) {
    await page.goto("/sales");
    await expect(page.getByRole("heading", { level: 1, name: "Minhas vendas" })).toBeVisible();
    await expect(page.getByRole("table")).toBeVisible();
  }
  await page.goto("/sales");
  await expect(page.getByRole("main").getByRole("alert")).toContainText(
    /Muitos pedidos em pouco tempo\. Aguarde \d+ segundos?/,
  );
  await expect(page.getByRole("table")).toHaveCount(0);
  expect(await limited("history")).toBe(1);
  expect(limitLines("history")).toHaveLength(1);
  await page.context().close();
});

/** A GET whose answer is read only as far as its headers, until `resume`: a download the client holds open. */
function heldDownload(url: string, cookie: string) {
  return new Promise<{ response: IncomingMessage; finished: Promise<{ bytes: number; complete: boolean }> }>(
    (resolve, reject) => {
      const request = httpRequest(url, { headers: { cookie } }, (response) => {
        response.pause();
        let bytes = 0;
        const finished = new Promise<{ bytes: number; complete: boolean }>((done) => {
          response.on("data", (chunk: Buffer) => (bytes += chunk.length));
          response.on("error", () => undefined);
          response.on("close", () => done({ bytes, complete: response.complete }));
        });
        resolve({ response, finished });
      });
      request.on("error", reject);
      request.end();
    },
  );
}

async function cookieOf(context: APIRequestContext): Promise<string> {
  return (await context.storageState()).cookies.map((each) => `${each.name}=${each.value}`).join("; ");
}

test("one export at a time per person, stopped when its session ends mid-download", async () => {
  test.setTimeout(120_000);
  // A ledger big enough that a download not being read stays open: copies of one sale, through the embedded
  // database's socket (it answers as its superuser).
  const seeded = Date.now();
  const seller = await signedInRequest(app.url, SUPERVISOR);
  expect((await sell(seller)).status()).toBe(201);
  await seller.dispose();
  const client = new pg.Client({ host: app.dataDir, port: 5432, user: "postgres", database: "postgres" });
  await client.connect();
  try {
    const columns = (
      await client.query<{ column_name: string }>(
        "select column_name from information_schema.columns where table_name = 'sales' and is_generated = 'NEVER' order by ordinal_position",
      )
    ).rows.map((row) => row.column_name);
    // Two batches' worth (10,000 rows each), about a kilobyte a row: more than the sockets between us hold.
    const fresh: Record<string, string> = {
      submission_id: "gen_random_uuid()",
      protocol: "upper(substr(md5(random()::text || n), 1, 10))",
      upstream_message: "repeat('Mensagem longa do fornecedor. ', 35)",
    };
    const values = columns.map((column) => fresh[column] ?? `s.${column}`);
    await client.query(
      `insert into sales (${columns.join(", ")}) select ${values.join(", ")} from (select * from sales limit 1) s, generate_series(1, 12000) n`,
    );
  } finally {
    await client.end();
  }

  test.info().annotations.push({ type: "seeded", description: `${Date.now() - seeded} ms` });
  // No kept-alive connections from here: the contexts wait for seconds between requests (the seeding, the
  // agent's whole export), and the server may close an idle one just as the next request goes out on it.
  const supervisor = await signedInRequest(app.url, SUPERVISOR, { keepAlive: false });
  const first = await heldDownload(`${app.url}/sales/export`, await cookieOf(supervisor));
  expect(first.response.statusCode).toBe(200);

  const second = await supervisor.get("/sales/export");
  expect(second.status()).toBe(429);
  expect(second.headers()["retry-after"]).toBe("30");
  expect(await second.json()).toEqual({
    error: "export_in_progress",
    message: userMessageFor("export_in_progress"),
  });
  expect(await limited("export")).toBe(1);
  expect(limitLines("export")).toHaveLength(1);
  // Another person's export is theirs to take.
  const agent = await signedInRequest(app.url, AGENT, { keepAlive: false });
  const agentsOwn = await agent.get("/sales/export");
  expect(agentsOwn.status()).toBe(200);
  expect(await agentsOwn.text()).toContain("Protocolo");

  // The supervisor signs out while the download waits: the next batch is not sent, and the download fails.
  const { csrfToken } = (await (await supervisor.get("/api/auth/csrf")).json()) as { csrfToken: string };
  await supervisor.post("/api/auth/signout", { form: { csrfToken }, maxRedirects: 0 });
  first.response.resume();
  const { complete } = await first.finished;
  expect(complete).toBe(false);
  // (Generous: the client first drains what the sockets held, then the server reads a batch of 10,000 rows.)
  await expect.poll(() => app.log(), { timeout: 30_000 }).toContain('"stopped":"session_ended"');

  // The slot was given back: signed in again, the supervisor exports.
  const again = await signedInRequest(app.url, SUPERVISOR, { keepAlive: false });
  await expect
    .poll(async () => (await again.get("/sales/export?status=rejected")).status(), { timeout: 30_000 })
    .toBe(200);
  await Promise.all([supervisor.dispose(), agent.dispose(), again.dispose()]);
});
