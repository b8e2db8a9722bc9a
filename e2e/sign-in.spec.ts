import { createAgent, agentsCli } from "./support/agents-cli";
import { DEMO_AGENT } from "./support/environment";
import { expect, test } from "./fixtures";

test.describe("signed out", () => {
  test("the form and the sales list redirect to the sign-in page", async ({ page, signInPage }) => {
    await page.goto("/");
    await signInPage.expectShown();
    await page.goto("/sales");
    await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fsales$/);
  });

  test("POST /api/sales answers 401 JSON", async ({ request }) => {
    const response = await request.post("/api/sales", { data: {} });
    expect(response.status()).toBe(401);
    expect(response.headers()["content-type"]).toContain("application/json");
    expect(await response.json()).toMatchObject({ error: "unauthorized" });
  });
});

test("the demo agent signs in, lands on the form, and signs out", async ({ page, signInPage }) => {
  await signInPage.goto();
  await signInPage.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  await expect(page).toHaveURL("/");
  await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
  await expect(page.getByRole("banner")).toContainText(DEMO_AGENT.name);

  await page.getByRole("button", { name: "Sair", exact: true }).click();
  await signInPage.expectShown();
  await page.goto("/");
  await signInPage.expectShown();
});

test("signing in returns to the page that was asked for", async ({ page, signInPage }) => {
  await page.goto("/?origem=portal");
  await expect(page).toHaveURL(/callbackUrl=%2F%3Forigem%3Dportal/);
  await signInPage.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
  await expect(page).toHaveURL("/?origem=portal");
});

test("a wrong password and an unknown e-mail get the same generic error", async ({ signInPage }) => {
  await signInPage.goto();
  await signInPage.signIn(DEMO_AGENT.email, "senha-errada");
  await expect(signInPage.alert()).toHaveText("E-mail ou senha incorretos.");
  // The e-mail stays typed; only the password is asked again.
  await expect(signInPage.email()).toHaveValue(DEMO_AGENT.email);
  await expect(signInPage.password()).toBeFocused();
  await signInPage.signIn("ninguem@demo.local", "senha-errada");
  await expect(signInPage.alert()).toHaveText("E-mail ou senha incorretos.");
});

test("after five failures even the right password is told to wait", async ({ page, signInPage }) => {
  const agent = await createAgent();
  await signInPage.goto();
  for (let failure = 1; failure <= 5; failure++) {
    await signInPage.signIn(agent.email, `errada-${failure}`);
    await expect(signInPage.alert()).toBeVisible();
  }
  await signInPage.signIn(agent.email, agent.password);
  await expect(signInPage.alert()).toHaveText(
    /Muitas tentativas sem sucesso\. Por segurança, aguarde 5 minutos/,
  );
  await expect(page).toHaveURL(/\/sign-in/);
});

test("an agent disabled with the CLI is signed out on the next navigation", async ({ page, signInPage }) => {
  const agent = await createAgent();
  await signInPage.goto();
  await signInPage.signIn(agent.email, agent.password);
  await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();

  const disabled = await agentsCli(["disable", "--email", agent.email]);
  expect(disabled.status).toBe(0);
  await page.reload();
  await signInPage.expectShown();
  await signInPage.signIn(agent.email, agent.password);
  await expect(signInPage.alert()).toHaveText("E-mail ou senha incorretos.");
});
