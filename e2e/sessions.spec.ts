import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request as playwrightRequest, type Browser, type Page } from "@playwright/test";
import pg from "pg";
import { freePort } from "../bench/lib/processes";
import { startTestPostgres, type TestPostgres } from "../scripts/test-postgres";
import { expect, test } from "./fixtures";
import { SignInPage } from "./pages/sign-in-page";
import { createAgent, type TestAgent } from "./support/agents-cli";
import { startAppInstance, type AppInstance } from "./support/app-instance";
import { signInOverHttp } from "./support/sign-in-over-http";
import { apiSale } from "./support/sandbox";

// Two app instances on one throwaway PostgreSQL, as a deployment behind a load balancer runs: a session ended on
// one must be ended on the other. Instance B believes X-Forwarded-For from loopback proxies (TRUSTED_PROXIES);
// instance A believes no forwarded header at all.
test.describe.configure({ mode: "serial" });

const AUTH_SECRET = "e2e-sessions-auth-secret-0123456789abcdef";
let postgres: TestPostgres | undefined;
let database: pg.Client;
const instances: AppInstance[] = [];
let A = "";
let B = "";
let databaseEnv: Record<string, string> = {};

async function startInstance(extraEnv: Record<string, string>) {
  const instance = await startAppInstance(
    await freePort(),
    { DATABASE_URL: postgres!.url, AUTH_SECRET, ...extraEnv },
    { host: "127.0.0.1" },
  );
  instances.push(instance);
  return instance.url;
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  postgres = await startTestPostgres();
  if (!postgres) {
    if (process.env.CI) throw new Error("PostgreSQL is needed for the session tests under CI.");
    return;
  }
  databaseEnv = { DATABASE_URL: postgres.url, DATA_DIR: mkdtempSync(join(tmpdir(), "partner-sales-cli-")) };
  A = await startInstance({});
  B = await startInstance({ TRUSTED_PROXIES: "127.0.0.0/8" });
  database = new pg.Client({ connectionString: postgres.url });
  await database.connect();
});

test.afterAll(async () => {
  await database?.end();
  for (const instance of instances) await instance.stop();
  if (databaseEnv.DATA_DIR) rmSync(databaseEnv.DATA_DIR, { recursive: true, force: true });
  postgres?.stop();
});

test.beforeEach(() => {
  test.skip(!postgres, "PostgreSQL is not available on this machine");
});

/** A person at their own desk: a browser context signed in on `baseUrl` as `agent`. */
async function signedIn(browser: Browser, baseUrl: string, agent: TestAgent): Promise<Page> {
  const page = await (await browser.newContext({ baseURL: baseUrl })).newPage();
  await page.goto("/sign-in");
  await new SignInPage(page).signIn(agent.email, agent.password);
  await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
  return page;
}

async function cookieHeaderOf(page: Page): Promise<string> {
  return (await page.context().cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
}

/** What a replayed Cookie header gets on `baseUrl`: the sale API's status and where the form page sends it. */
async function replay(baseUrl: string, cookie: string) {
  const client = await playwrightRequest.newContext({ baseURL: baseUrl });
  try {
    const sale = await client.post("/api/sales", {
      data: apiSale(),
      headers: { cookie, "Idempotency-Key": crypto.randomUUID(), Origin: baseUrl },
    });
    const page = await client.get("/", { headers: { cookie }, maxRedirects: 0 });
    return { sale: sale.status(), page: page.status(), location: page.headers().location ?? "" };
  } finally {
    await client.dispose();
  }
}

const sessionsOf = async (agent: TestAgent) =>
  (
    await database.query<{ id: string; ended: boolean }>(
      `select s.id, s.ended_at is not null as ended from sessions s join agents a on a.id = s.agent_id
       where a.email = $1 order by s.created_at`,
      [agent.email],
    )
  ).rows;

test("a copied session cookie dies with sign-out, on every instance", async ({ browser }) => {
  const agent = await createAgent("agent", databaseEnv);
  const page = await signedIn(browser, A, agent);
  const cookie = await cookieHeaderOf(page);
  // The same cookie is good on the other instance while the session lives…
  expect((await replay(B, cookie)).page).toBe(200);

  await page.getByRole("button", { name: "Sair", exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in/);

  // …and on neither once it has ended.
  for (const baseUrl of [A, B]) {
    const answer = await replay(baseUrl, cookie);
    expect(answer.sale).toBe(401);
    expect(answer.page).toBe(307);
    expect(answer.location).toContain("/sign-in");
  }
  expect(await sessionsOf(agent)).toEqual([{ id: expect.any(String), ended: true }]);
  await page.context().close();
});

test("a new sign-in ends the session its browser held, and Auth.js's own sign-out endpoint ends the row", async ({
  browser,
}) => {
  const agent = await createAgent("agent", databaseEnv);
  const page = await signedIn(browser, A, agent);
  const first = await cookieHeaderOf(page);
  const csrfToken = async () =>
    ((await (await page.request.get("/api/auth/csrf")).json()) as { csrfToken: string }).csrfToken;

  // Signing in again from the same browser (a script, a second tab on the sign-in form) replaces the cookie: the
  // session the old one named ends with it, so a copy of it is worth nothing.
  const again = await page.request.post("/api/auth/callback/credentials", {
    form: { email: agent.email, password: agent.password, csrfToken: await csrfToken() },
    maxRedirects: 0,
  });
  expect(again.headers().location).not.toContain("error=");
  const second = await cookieHeaderOf(page);
  expect(second).not.toBe(first);
  expect((await replay(B, first)).sale).toBe(401);
  expect((await replay(B, second)).page).toBe(200);
  // (Ended rows may already be pruned by a sign-in, so the live ones are counted.)
  const live = async () => (await sessionsOf(agent)).filter((session) => !session.ended).length;
  expect(await live()).toBe(1);

  // POST /api/auth/signout, as a script or Auth.js's own page sends it: the row ends, not just the cookie.
  const signOut = await page.request.post("/api/auth/signout", {
    form: { csrfToken: await csrfToken() },
    maxRedirects: 0,
  });
  expect(signOut.status()).toBe(302);
  for (const baseUrl of [A, B]) expect((await replay(baseUrl, second)).sale).toBe(401);
  expect(await live()).toBe(0);
  await page.context().close();
});

test("'Sair de todos os dispositivos' ends the agent's session in another browser", async ({ browser }) => {
  const agent = await createAgent("agent", databaseEnv);
  const desk = await signedIn(browser, A, agent);
  const laptop = await signedIn(browser, B, agent);

  await laptop.getByRole("button", { name: "Sair de todos os dispositivos" }).click();
  await expect(laptop).toHaveURL(/\/sign-in/);

  await desk.goto("/sales");
  await expect(desk).toHaveURL(/\/sign-in\?callbackUrl=%2Fsales/);
  expect((await sessionsOf(agent)).map((session) => session.ended)).toEqual([true, true]);
  await desk.context().close();
  await laptop.context().close();
});

test("a session idle past the limit is refused; one in use lives on past it", async ({ browser }) => {
  const idle = await createAgent("agent", databaseEnv);
  const busy = await createAgent("agent", databaseEnv);
  const idlePage = await signedIn(browser, A, idle);
  const busyPage = await signedIn(browser, A, busy);
  const age = (agent: TestAgent, column: "last_seen_at" | "created_at", minutes: number) =>
    database.query(
      `update sessions set ${column} = ${column} - make_interval(mins => $2)
       where agent_id = (select id from agents where email = $1)`,
      [agent.email, minutes],
    );

  // Nobody used the first session for 61 minutes (the default limit is 60).
  await age(idle, "last_seen_at", 61);
  await idlePage.goto("/sales");
  await expect(idlePage).toHaveURL(/\/sign-in/);

  // The second is used every 50 minutes, for longer than the idle limit since sign-in.
  for (let round = 0; round < 3; round++) {
    await age(busy, "last_seen_at", 50);
    await age(busy, "created_at", 50);
    await busyPage.goto("/sales");
    await expect(busyPage.getByRole("heading", { level: 1 })).toHaveText("Minhas vendas");
  }
  await idlePage.context().close();
  await busyPage.context().close();
});

test("a session refreshed through /api/auth/session still ends 12 hours after sign-in", async ({
  browser,
}) => {
  const agent = await createAgent("agent", databaseEnv);
  const page = await signedIn(browser, A, agent);
  const session = async () => (await page.request.get("/api/auth/session")).json();

  // Polled every few minutes all day long: each answer re-issues the cookie with a fresh expiry.
  for (let hour = 0; hour < 11; hour++) {
    await database.query(
      `update sessions set created_at = created_at - interval '1 hour', last_seen_at = last_seen_at - interval '5 minutes'
       where agent_id = (select id from agents where email = $1)`,
      [agent.email],
    );
    expect(await session()).toMatchObject({ user: { email: agent.email } });
  }
  await database.query(
    `update sessions set created_at = created_at - interval '61 minutes'
     where agent_id = (select id from agents where email = $1)`,
    [agent.email],
  );
  expect(await session()).toBeNull();
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
  await page.context().close();
});

test.describe("the client's address", () => {
  const failures = 50; // the per-address limit (lib/auth/sign-in.ts)

  test("a forged X-Forwarded-For changes nothing when no proxy is trusted: the real peer is locked", async () => {
    const agent = await createAgent("agent", databaseEnv);
    const sender = { localAddress: "127.0.0.21", headers: { "X-Forwarded-For": "203.0.113.50" } };
    for (let attempt = 0; attempt < failures; attempt++) {
      const guess = { email: `spray-a-${attempt}@example.com`, password: "wrong password" };
      expect(await signInOverHttp(A, guess, sender)).not.toBe("signed-in");
    }
    // The sender is locked out even with the right password and without the header…
    expect(await signInOverHttp(A, agent, { localAddress: "127.0.0.21" })).toBe("locked");
    // …and 203.0.113.50, which it named, is not: a trusted proxy on B may speak for it.
    expect(
      await signInOverHttp(B, agent, {
        localAddress: "127.0.0.22",
        headers: { "X-Forwarded-For": "203.0.113.50" },
      }),
    ).toBe("signed-in");
  });

  test("behind a trusted proxy, the forwarded client is the one locked", async () => {
    const agent = await createAgent("agent", databaseEnv);
    const proxy = "127.0.0.31";
    for (let attempt = 0; attempt < failures; attempt++) {
      const guess = { email: `spray-b-${attempt}@example.com`, password: "wrong password" };
      // What nginx sends ($proxy_add_x_forwarded_for): whatever the client wrote, then the client it saw.
      const headers = { "X-Forwarded-For": `10.9.9.${attempt}, 198.51.100.23` };
      expect(await signInOverHttp(B, guess, { localAddress: proxy, headers })).not.toBe("signed-in");
    }
    const through = (client: string) =>
      signInOverHttp(B, agent, { localAddress: proxy, headers: { "X-Forwarded-For": client } });
    expect(await through("198.51.100.23")).toBe("locked");
    // Another client behind the same proxy is not.
    expect(await through("198.51.100.24")).toBe("signed-in");
  });
});
