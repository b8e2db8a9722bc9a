import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "./fixtures";
import { signInElsewhere } from "./pages/sign-in-page";
import { expectNoAxeViolations } from "./support/accessibility";
import { englishWordsIn } from "./support/english-words";
import { DEMO_AGENT, E2E_DATA_DIR, E2E_METRICS_TOKEN } from "./support/environment";

test("the home page is the app, in Portuguese, with its header", async ({ page, signInPage }) => {
  await page.goto("/");
  await signInPage.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  await expect(page).toHaveTitle(/Nova venda · Partner Sales/);
  await expect(page.locator("html")).toHaveAttribute("lang", "pt-BR");
  await expect(page.getByRole("banner").getByRole("link", { name: "Partner Sales" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
});

test("every page, the not-found ones and those Auth.js would render included, has one <main> and is pt-BR", async ({
  page,
  signInPage,
}) => {
  const expectOnePage = async (path: string, landsOn: RegExp, heading: string) => {
    await page.goto(path);
    await expect(page).toHaveURL(landsOn);
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "pt-BR");
    await expect(page.locator("main")).toHaveCount(1);
    await expectNoAxeViolations(page);
    expect(await englishWordsIn(page)).toEqual([]);
  };
  // Signed out: the app's pages, an address that leads nowhere, and Auth.js's own pages, which are the app's.
  await expectOnePage("/nowhere", /\/nowhere$/, "Página não encontrada");
  await expectOnePage("/sign-out", /\/sign-out$/, "Você saiu do Partner Sales");
  await expectOnePage("/api/auth/signout", /\/sign-out$/, "Você saiu do Partner Sales");
  await expectOnePage("/api/auth/signin", /\/sign-in/, "Partner Sales");
  await expectOnePage("/api/auth/error?error=Configuration", /\/sign-in\?error=/, "Partner Sales");
  await expectOnePage("/api/auth/verify-request", /\/sign-in/, "Partner Sales");

  await page.goto("/");
  await signInPage.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
  // Signed in: a sale that is not there and the supervisor's dashboard (an agent's notFound()) render inside the
  // sales layout, whose <main> they are in.
  await expectOnePage(`/sales/${randomUUID()}`, /\/sales\//, "Página não encontrada");
  await expectOnePage("/dashboard", /\/dashboard$/, "Página não encontrada");
  await expectOnePage("/nowhere", /\/nowhere$/, "Página não encontrada");
  await expectOnePage("/api/auth/signout", /\/sign-out$/, "Sair do Partner Sales?");
  await page.getByRole("button", { name: "Sair", exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/sales");
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fsales$/);
});

test("the health endpoint tells anyone only ok; operators and supervisors get the details", async ({
  request,
  browser,
}) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(response.headers()["cache-control"]).toContain("no-store");
  expect(await response.json()).toEqual({ status: "ok" });
  const wrongToken = await request.get("/api/health", { headers: { Authorization: "Bearer not-the-token" } });
  expect(await wrongToken.json()).toEqual({ status: "ok" });

  const operator = await request.get("/api/health", {
    headers: { Authorization: `Bearer ${E2E_METRICS_TOKEN}` },
  });
  const text = await operator.text();
  expect(JSON.parse(text)).toMatchObject({ status: "ok", db: "ok", upstream: { mode: "sandbox" } });
  expect(text).not.toContain("sandbox-secret");

  const supervisor = await signInElsewhere(browser, "supervisor@demo.local", DEMO_AGENT.password);
  await expect(supervisor.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
  expect(await (await supervisor.request.get("/api/health")).json()).toMatchObject({ db: "ok" });
  await supervisor.context().close();
});

test("the favicon is served", async ({ request }) => {
  const response = await request.get("/icon.svg");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("image/svg+xml");
});

test("no page, script or response the browser gets carries a secret", async ({ page, signInPage }) => {
  const authSecret = readFileSync(join(E2E_DATA_DIR, "auth-secret"), "utf8").trim();
  const secrets = ["sandbox-secret", authSecret];
  const bodies: string[] = [];
  page.on("response", async (response) => {
    bodies.push(
      `${response.url()} ${JSON.stringify(response.headers())} ${await response.text().catch(() => "")}`,
    );
  });
  await page.goto("/");
  await signInPage.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
  await page.goto("/sales");
  await page.goto("/api/health");
  expect(bodies.length).toBeGreaterThan(5);
  for (const body of bodies) for (const secret of secrets) expect(body).not.toContain(secret);
});
