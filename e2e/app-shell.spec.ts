import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "./fixtures";
import { DEMO_AGENT, E2E_DATA_DIR } from "./support/environment";

test("the home page is the app, in Portuguese, with its header", async ({ page, signInPage }) => {
  await page.goto("/");
  await signInPage.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  await expect(page).toHaveTitle(/Nova venda · Partner Sales/);
  await expect(page.locator("html")).toHaveAttribute("lang", "pt-BR");
  await expect(page.getByRole("banner").getByRole("link", { name: "Partner Sales" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
});

test("the health endpoint answers without secrets", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(response.headers()["cache-control"]).toContain("no-store");
  const text = await response.text();
  expect(JSON.parse(text)).toMatchObject({ status: "ok", db: "ok" });
  expect(text).not.toContain("sandbox-secret");
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
