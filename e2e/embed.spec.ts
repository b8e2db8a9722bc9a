import type { Server } from "node:http";
import type { Frame, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ALLOWED_PORTAL, PORTAL_PORTS } from "./support/environment";
import { signEmbedToken, startPortal } from "./support/portal";
import { formatCpf, freshCpf, sandboxControl } from "./support/sandbox";
import { parsePolicy } from "./support/security-headers";

let portals: Server[] = [];

test.beforeAll(async () => {
  portals = await Promise.all([startPortal(PORTAL_PORTS.allowed), startPortal(PORTAL_PORTS.other)]);
});
test.afterAll(async () => {
  await Promise.all(portals.map((server) => new Promise((resolve) => server.close(resolve))));
});
test.beforeEach(() => sandboxControl("POST", "reset"));

async function mountInPortal(page: Page, portal: string, options: Record<string, unknown>) {
  await page.goto(`${portal}/`);
  await page.evaluate(
    (mountOptions) =>
      (window as unknown as { mountPartnerSales: (o: unknown) => void }).mountPartnerSales(mountOptions),
    options,
  );
  return page.frameLocator("#partner-sales iframe");
}

const events = (page: Page) =>
  page.evaluate(() => (window as unknown as { events: { type: string }[] }).events);

test("a portal mounts the app with a signed token: signed in, prefilled, sale accepted, event received", async ({
  page,
}) => {
  const cookies: string[] = [];
  page.on("response", async (response) => {
    for (const header of await response.headersArray()) {
      if (header.name.toLowerCase() === "set-cookie" && header.value.startsWith("authjs.session-token=")) {
        cookies.push(header.value);
      }
    }
  });
  const token = await signEmbedToken({
    name: "Paula Portal",
    prefill: {
      customerName: "Cliente Prefill",
      customerEmail: "cliente@example.com",
      externalId: "PORTAL-9",
    },
  });
  const frame = await mountInPortal(page, ALLOWED_PORTAL, { token });
  await expect(frame.getByLabel("Nome completo")).toHaveValue("Cliente Prefill");
  await expect(frame.getByLabel("ID do cliente no parceiro")).toHaveValue("PORTAL-9");
  await expect(page.locator("#partner-sales iframe")).toHaveAttribute("title", "Partner Sales: nova venda");

  await frame.getByLabel("CPF").fill(formatCpf(freshCpf()));
  await frame.getByLabel("Telefone").fill("(11) 98765-4321");
  await frame.getByLabel("Plano").selectOption({ label: "Plano Essencial" });
  await frame.getByRole("button", { name: "Enviar venda" }).click();
  await expect(frame.getByRole("main").getByRole("status")).toContainText("Venda enviada");

  await expect
    .poll(async () => (await events(page)).map((event) => event.type))
    .toContain("partner-sales:submitted");
  const submitted = (await events(page)).find((event) => event.type === "partner-sales:submitted");
  expect(submitted).toEqual({
    type: "partner-sales:submitted",
    submissionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    status: "accepted",
    externalId: "PORTAL-9",
  });
  expect((await events(page)).map((event) => event.type)).toContain("partner-sales:ready");
  expect(JSON.stringify(await events(page))).not.toContain("Cliente Prefill");

  expect(cookies.length).toBeGreaterThan(0);
  for (const cookie of cookies) {
    expect(cookie).toMatch(/;\s*SameSite=None/i);
    expect(cookie).toMatch(/;\s*Secure/i);
    expect(cookie).toMatch(/;\s*Partitioned/i);
  }
  const frameUrl =
    page
      .frames()
      .find((each: Frame) => each.url().includes("/embed"))
      ?.url() ?? "";
  expect(frameUrl).not.toContain("token=");

  // The next customer's prefill waits for "Nova venda": it never rewrites the sale just confirmed.
  await page.evaluate(() =>
    (window as unknown as { handle: { prefill: (f: unknown) => void } }).handle.prefill({
      customerName: "Próxima Cliente",
    }),
  );
  await page.waitForTimeout(300);
  await expect(frame.getByLabel("Nome completo")).toHaveValue("Cliente Prefill");
  await frame.getByRole("button", { name: "Nova venda" }).click();
  await expect(frame.getByLabel("Nome completo")).toHaveValue("Próxima Cliente");
  await expect(frame.getByLabel("CPF")).toHaveValue("");
});

test("a token opened outside the portal's frame signs nobody in", async ({ page }) => {
  await page.goto(`/embed?token=${await signEmbedToken()}`);
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(
    "Este acesso só funciona dentro do portal do parceiro. Abra a venda novamente pelo portal.",
  );
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("a page on an origin not in the list cannot show the app", async ({ page }) => {
  const frame = await mountInPortal(page, `http://127.0.0.1:${PORTAL_PORTS.other}`, {
    token: await signEmbedToken(),
  });
  await page.waitForTimeout(1_500);
  await expect(frame.getByLabel("CPF")).toHaveCount(0);
  await expect(frame.getByText("Entrando")).toHaveCount(0);
});

test("expired, replayed and wrongly signed tokens each say so and sign nobody in", async ({ page }) => {
  const expired = await signEmbedToken({}, { issuedAt: Math.floor(Date.now() / 1000) - 600, lifetime: 300 });
  let frame = await mountInPortal(page, ALLOWED_PORTAL, { token: expired });
  await expect(frame.getByRole("main").getByRole("alert")).toHaveText(
    "O acesso expirou. Abra a venda novamente pelo portal.",
  );

  const forged = await signEmbedToken({}, { secret: "not-the-portal-secret-but-long-enough-0000" });
  frame = await mountInPortal(page, ALLOWED_PORTAL, { token: forged });
  await expect(frame.getByRole("main").getByRole("alert")).toHaveText(/a assinatura do portal não confere/);

  const token = await signEmbedToken();
  frame = await mountInPortal(page, ALLOWED_PORTAL, { token });
  await expect(frame.getByLabel("CPF")).toBeVisible();
  await page.context().clearCookies();
  frame = await mountInPortal(page, ALLOWED_PORTAL, { token });
  await expect(frame.getByRole("main").getByRole("alert")).toHaveText(
    "Este acesso já foi usado. Abra a venda novamente pelo portal.",
  );
  await expect(frame.getByLabel("CPF")).toHaveCount(0);
  expect((await events(page)).map((event) => event.type)).toContain("partner-sales:error");
});

test("prefill comes only from the allowed portal and never submits", async ({ page }) => {
  const frame = await mountInPortal(page, ALLOWED_PORTAL, { token: await signEmbedToken() });
  await expect(frame.getByLabel("CPF")).toBeVisible();
  const app = page.frames().find((each) => each.url().includes("/embed"))!;
  await app.evaluate(() =>
    window.dispatchEvent(
      new MessageEvent("message", {
        data: { type: "partner-sales:prefill", fields: { customerName: "Intruso" } },
        origin: "http://evil.example",
        source: window.parent,
      }),
    ),
  );
  await page.waitForTimeout(300);
  await expect(frame.getByLabel("Nome completo")).toHaveValue("");

  await page.evaluate(() =>
    (window as unknown as { handle: { prefill: (f: unknown) => void } }).handle.prefill({
      customerName: "Vinda do Portal",
      customerDocument: "52998224725",
      birthDate: "1990-05-10",
      unknownField: "ignored",
    }),
  );
  await expect(frame.getByLabel("Nome completo")).toHaveValue("Vinda do Portal");
  await expect(frame.getByLabel("CPF")).toHaveValue("529.982.247-25");
  await expect(frame.getByLabel("Data de nascimento")).toHaveValue("10/05/1990");
  expect((await sandboxControl<{ saleRequests: number }>("GET", "stats")).saleRequests).toBe(0);
});

test("the frame grows with its content", async ({ page }) => {
  const frame = await mountInPortal(page, ALLOWED_PORTAL, {
    token: await signEmbedToken(),
    initialHeight: 200,
  });
  await expect(frame.getByLabel("CPF")).toBeVisible();
  const iframe = page.locator("#partner-sales iframe");
  await expect.poll(async () => (await iframe.boundingBox())?.height ?? 0).toBeGreaterThan(300);
  const before = (await iframe.boundingBox())!.height;
  await frame.getByRole("button", { name: "Enviar venda" }).click();
  await expect(frame.getByText("Informe o CPF.")).toBeVisible();
  await expect.poll(async () => (await iframe.boundingBox())?.height ?? 0).toBeGreaterThan(before + 40);
});

test("every response names exactly the allowed portals as frame ancestors", async ({ request }) => {
  for (const path of ["/embed", "/sign-in", "/api/health", "/api/auth/csrf"]) {
    const response = await request.get(path);
    const policy = parsePolicy(response.headers()["content-security-policy"]);
    expect(policy["frame-ancestors"]).toEqual(["'self'", ALLOWED_PORTAL]);
  }
});

test("Auth.js's own cookies follow the embedded policy too (CSRF included)", async ({ request }) => {
  const response = await request.get("/api/auth/csrf");
  const csrf = response
    .headersArray()
    .find(
      (header) => header.name.toLowerCase() === "set-cookie" && header.value.startsWith("authjs.csrf-token="),
    );
  expect(csrf?.value).toMatch(/;\s*SameSite=None/i);
  expect(csrf?.value).toMatch(/;\s*Secure/i);
  expect(csrf?.value).toMatch(/;\s*Partitioned/i);
});
