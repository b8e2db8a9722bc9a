import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { Page } from "@playwright/test";
import { EVIDENCE_MESSAGES } from "../lib/validation/evidence";
import { expect, test } from "./fixtures";
import { SaleFormPage } from "./pages/sale-form-page";
import { expectNoAxeViolations } from "./support/accessibility";
import { ALLOWED_PORTAL, PORTAL_PORTS } from "./support/environment";
import { signPortalToken, startPortal } from "./support/portal";
import { apiKeyFromCli } from "./support/agents-cli";
import { apiSale, freshCpf, sandboxControl, sandboxStats } from "./support/sandbox";

// A 1366×768 screen minus the browser's own bars: the script and every field in view together.
test.use({ viewport: { width: 1366, height: 657 } });

const COMPLETO = "5b0e7d21-3c84-4f9a-a6d2-8e1f0c9b7a43";

/** The scripted plan's script hash, as the form holds it once the plan is chosen. */
async function scriptOfCompleto(page: Page): Promise<string> {
  await page.goto("/");
  await page.getByLabel("Plano", { exact: true }).selectOption(COMPLETO);
  return page.locator('input[name="scriptHash"]').inputValue();
}

const customer = (plan: string) => ({
  cpf: freshCpf(),
  name: "Joana Prado",
  email: "joana@example.com",
  phone: "(21) 98765-4321",
  plan,
});

/** The offer script's parts, as the agent finds them beside the fields. */
const scriptOf = (page: Pick<Page, "getByRole" | "getByLabel">) => ({
  region: () => page.getByRole("region", { name: /Roteiro da oferta/ }),
  valor: () => page.getByRole("checkbox", { name: /aceitou o valor/ }),
  dados: () => page.getByRole("checkbox", { name: /autorizou o uso dos dados/ }),
  ofertas: () =>
    page.getByRole("checkbox", { name: "O cliente aceita receber ofertas por e-mail (opcional)" }),
  recordingId: () => page.getByLabel("ID da gravação da chamada"),
});

async function expectWholeFormInView(form: SaleFormPage) {
  const script = scriptOf(form.page);
  for (const control of [
    form.cpf(),
    form.name(),
    form.email(),
    form.phone(),
    form.plan(),
    form.birthDate(),
    form.externalId(),
    script.recordingId(),
    script.region(),
    form.submit(),
  ]) {
    await expect(control).toBeInViewport({ ratio: 1 });
  }
}

test("a scripted plan's sale waits for the required confirmations, then goes with them and is accepted", async ({
  saleForm,
  page,
}) => {
  const script = scriptOf(page);
  await saleForm.fill(customer("Plano Completo"));
  await expect(script.region()).toContainText("versão 2026-11");
  await expect(script.region()).toContainText(/o Plano Completo custa R\$\s69,90 por mês/);
  await expect(script.valor()).toHaveAccessibleName(/^O cliente aceitou o valor de R\$\s69,90 por mês$/);

  // Nothing ticked: the message with the group, the first required confirmation in focus, nothing sent.
  await saleForm.submit().click();
  await expect(page.getByRole("group", { name: "Confirmações do cliente" })).toHaveAccessibleDescription(
    EVIDENCE_MESSAGES.confirmationsMissing,
  );
  await expect(script.valor()).toBeFocused();
  await expect(script.valor()).toHaveAccessibleDescription(EVIDENCE_MESSAGES.confirmationsMissing);
  // A mouse tick leaves the focus where it is; the message stays until every required one is ticked.
  await script.valor().check();
  await expect(script.valor()).toBeFocused();
  await saleForm.submit().click();
  await expect(script.dados()).toBeFocused();
  await expect(page.getByText(EVIDENCE_MESSAGES.confirmationsMissing)).toBeVisible();
  expect((await sandboxStats()).saleRequests).toBe(0);

  await script.dados().check();
  await expect(page.getByText(EVIDENCE_MESSAGES.confirmationsMissing)).toHaveCount(0);
  await expect(page.locator('input[name="confirmations"]')).toHaveValue(
    /^\{"valor":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","dados":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"\}$/,
  );
  // A recording id with a space: its own message and the focus, as the server would say.
  await script.recordingId().fill("gravação 42");
  await saleForm.submit().click();
  await expect(script.recordingId()).toBeFocused();
  await expect(script.recordingId()).toHaveAccessibleDescription(
    new RegExp(EVIDENCE_MESSAGES.recordingIdInvalid.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")),
  );
  await script.recordingId().fill("dialer:fila-7/2026-11-29#42");
  await expect(script.recordingId()).not.toHaveAttribute("aria-invalid");
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  expect((await sandboxStats()).salesAccepted).toBe(1);

  // The next customer's form: no plan, and once the plan is chosen again, nothing ticked, no recording id.
  await saleForm.choosePlan("Plano Completo");
  await expect(script.valor()).not.toBeChecked();
  await expect(script.dados()).not.toBeChecked();
  await expect(script.recordingId()).toHaveValue("");
});

test("the server's word on the confirmations and the recording id shows on those controls, with the focus", async ({
  saleForm,
  page,
}) => {
  const script = scriptOf(page);
  await saleForm.fill(customer("Plano Completo"));
  await script.valor().check();
  await script.dados().check();
  // What only a tampered page would send: a tick from another day, then a recording id with a space.
  const setPosted = (name: string, value: string) =>
    page.locator(`input[name="${name}"]`).evaluate((input, text) => {
      (input as HTMLInputElement).value = text;
    }, value);
  await setPosted(
    "confirmations",
    JSON.stringify({ valor: "2020-01-01T00:00:00.000Z", dados: "2020-01-01T00:00:00.000Z" }),
  );
  await saleForm.submit().click();
  await expect(page.getByRole("group", { name: "Confirmações do cliente" })).toHaveAccessibleDescription(
    EVIDENCE_MESSAGES.confirmationsInvalid,
  );
  await expect(script.valor()).toBeFocused();
  // Ticked again, the message goes; the recording id the server refuses gets its own.
  await script.valor().uncheck();
  await script.valor().check();
  await expect(page.getByText(EVIDENCE_MESSAGES.confirmationsInvalid)).toHaveCount(0);
  await script.recordingId().fill("gravacao-42");
  await setPosted("recordingId", "gravação 42");
  await saleForm.submit().click();
  await expect(script.recordingId()).toBeFocused();
  await expect(script.recordingId()).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText(EVIDENCE_MESSAGES.recordingIdInvalid)).toBeVisible();
  expect((await sandboxStats()).saleRequests).toBe(0);
});

test("another plan clears the ticks; a plan without a script shows no script, checkbox or recording field", async ({
  saleForm,
  page,
}) => {
  const script = scriptOf(page);
  const narrowForm = (await page.getByRole("region", { name: "Nova venda" }).boundingBox())!.width;
  await saleForm.choosePlan("Plano Completo");
  await script.valor().check();
  await script.ofertas().check();
  await saleForm.choosePlan("Plano Família");
  await expect(script.region()).toHaveCount(0);
  await expect(page.getByRole("checkbox")).toHaveCount(0);
  await expect(script.recordingId()).toHaveCount(0);
  await expect(page.locator('input[name="scriptHash"], input[name="confirmations"]')).toHaveCount(0);
  // The form exactly as wide as without any script.
  expect((await page.getByRole("region", { name: "Nova venda" }).boundingBox())!.width).toBe(narrowForm);

  await saleForm.choosePlan("Plano Completo");
  await expect(script.valor()).not.toBeChecked();
  await expect(script.ofertas()).not.toBeChecked();
  await expect(page.locator('input[name="confirmations"]')).toHaveValue("{}");

  // "Nova venda" after an outcome clears them too.
  await script.valor().check();
  await saleForm.fill(customer("Plano Família"));
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  await saleForm.choosePlan("Plano Completo");
  await expect(script.valor()).not.toBeChecked();
});

test("the script and every field are in view together at 1366×657, and axe finds nothing, errors shown too", async ({
  saleForm,
  page,
}) => {
  await saleForm.fill(customer("Plano Completo"));
  await expectWholeFormInView(saleForm);
  await expectNoAxeViolations(page);
  await saleForm.submit().click();
  await expect(page.getByText(EVIDENCE_MESSAGES.confirmationsMissing)).toBeVisible();
  await expectWholeFormInView(saleForm);
  await expectNoAxeViolations(page);
});

test("the JSON doors sell the scripted plan only with its evidence: a session's with it, a key alone never", async ({
  signedIn: page,
}) => {
  const script = await scriptOfCompleto(page);
  const sale = () => apiSale({ planId: COMPLETO });
  const before = (await sandboxStats()).saleRequests;
  // The session's JSON API: without the ticks, refused as the form refuses.
  const bare = await page.request.post("/api/sales", {
    data: sale(),
    headers: { "Idempotency-Key": randomUUID() },
  });
  expect(bare.status()).toBe(400);
  expect((await bare.json()).fieldErrors).toEqual({ confirmations: EVIDENCE_MESSAGES.confirmationsMissing });
  // An integration's key alone: no agent read the script to anyone.
  const key = await apiKeyFromCli([
    "create",
    "--name",
    `evidence-${randomUUID().slice(0, 8)}`,
    "--scopes",
    "sales:write",
  ]);
  const byKey = await page.request.post("/api/v1/sales", {
    data: sale(),
    headers: { "Idempotency-Key": randomUUID(), Authorization: `Bearer ${key}` },
  });
  expect(byKey.status()).toBe(400);
  expect(JSON.stringify(await byKey.json())).toContain(EVIDENCE_MESSAGES.scriptedPlanInSession);
  expect((await sandboxStats()).saleRequests).toBe(before);
  // With the ticks, the session's JSON API sells it.
  const at = new Date().toISOString();
  const idempotencyKey = randomUUID();
  const body = {
    ...sale(),
    scriptHash: script,
    confirmations: { valor: at, dados: at },
    recordingId: "rec-api-1",
  };
  const sold = await page.request.post("/api/sales", {
    data: body,
    headers: { "Idempotency-Key": idempotencyKey },
  });
  expect(sold.status()).toBe(201);
  expect((await sandboxStats()).saleRequests).toBe(before + 1);
  // The same sale again, its ticks lost on the way: the ledger answers it, as any replay, and sends nothing.
  const again = await page.request.post("/api/sales", {
    data: { ...body, confirmations: {} },
    headers: { "Idempotency-Key": idempotencyKey },
  });
  expect(again.status()).toBe(200);
  expect(await again.json()).toMatchObject({ status: "accepted", protocol: (await sold.json()).protocol });
  expect((await sandboxStats()).saleRequests).toBe(before + 1);
});

test("a computer whose clock runs ten minutes fast still sells: the server dates the ticks by its clock", async ({
  signedIn: page,
  saleForm,
}) => {
  await page.clock.setSystemTime(Date.now() + 10 * 60_000);
  await page.reload();
  const script = scriptOf(page);
  await saleForm.fill(customer("Plano Completo"));
  await script.valor().check();
  await script.dados().check();
  const submissionId = await page.locator('input[name="submissionId"]').inputValue();
  const sentAt = Date.now();
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");

  // The record dates both ticks by this machine's clock (the server's), not the page's ten minutes ahead.
  const key = await apiKeyFromCli([
    "create",
    "--name",
    `clock-${randomUUID().slice(0, 8)}`,
    "--scopes",
    "sales:read",
  ]);
  const read = await page.request.get(`/api/v1/sales/${submissionId}`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  expect(read.status()).toBe(200);
  const { evidence } = (await read.json()) as { evidence: { confirmations: { confirmedAt: string }[] } };
  expect(evidence.confirmations).toHaveLength(2);
  for (const { confirmedAt } of evidence.confirmations) {
    const offset = Date.parse(confirmedAt) - sentAt;
    // Ten minutes ahead if the server took the page's clock; a minute either way covers a loaded machine.
    expect(Math.abs(offset)).toBeLessThan(60_000);
  }
});

test.describe("in a partner portal", () => {
  let portal: Server;
  test.beforeAll(async () => {
    portal = await startPortal(PORTAL_PORTS.allowed);
  });
  test.afterAll(() => new Promise<void>((resolve) => portal.close(() => resolve())));

  test("the portal prefills the call's recording id, by token and by message", async ({ page }) => {
    await sandboxControl("POST", "reset");
    await page.goto(`${ALLOWED_PORTAL}/`);
    const token = await signPortalToken({ prefill: { planId: COMPLETO, recordingId: "dialer:fila-7#41" } });
    await page.evaluate(
      (options) =>
        (window as unknown as { mountPartnerSales: (options: unknown) => void }).mountPartnerSales(options),
      { token },
    );
    const frame = page.frameLocator("#partner-sales iframe");
    const script = scriptOf(frame);
    await expect(script.region()).toBeVisible();
    await expect(script.recordingId()).toHaveValue("dialer:fila-7#41");
    await page.evaluate(() =>
      (window as unknown as { handle: { prefill: (fields: unknown) => void } }).handle.prefill({
        recordingId: "dialer:fila-7#42",
      }),
    );
    await expect(script.recordingId()).toHaveValue("dialer:fila-7#42");
    expect((await sandboxStats()).saleRequests).toBe(0);
  });
});

test("a scripted sale that failed (nothing sent) and is fixed with another plan goes as a new sale", async ({
  saleForm,
  page,
}) => {
  const script = scriptOf(page);
  const submissionId = () => page.locator('input[name="submissionId"]').inputValue();
  await sandboxControl("POST", "tokens/revoke");
  await sandboxControl("POST", "faults", { kind: "503", target: "token", count: 1 });
  await saleForm.fill(customer("Plano Completo"));
  await script.valor().check();
  await script.dados().check();
  await saleForm.submit().click();
  await expect(saleForm.alert()).toContainText("Venda não enviada");
  const failedId = await submissionId();

  await saleForm.choosePlan("Plano Família");
  expect(await submissionId()).not.toBe(failedId);
  await saleForm.submit().click();
  await expect(saleForm.status().or(saleForm.alert())).toBeVisible();
  // Within a second of the provider's failure a new sale is not tried (the token waits its back-off); "Enviar de
  // novo" tries it now, as for any failed sale.
  if (await saleForm.alert().isVisible()) {
    await expect(saleForm.alert()).toContainText("Venda não enviada");
    expect(await submissionId()).not.toBe(failedId);
    await saleForm.submit().click();
  }
  await expect(saleForm.status()).toContainText("Venda aceita");
});

test("a failed scripted sale whose re-send recorded nothing goes as a new sale once its ticks change", async ({
  saleForm,
  page,
}) => {
  const script = scriptOf(page);
  const submissionId = () => page.locator('input[name="submissionId"]').inputValue();
  const sale = customer("Plano Completo");
  await sandboxControl("POST", "tokens/revoke");
  await sandboxControl("POST", "faults", { kind: "503", target: "token", count: 1 });
  await saleForm.fill(sale);
  await script.valor().check();
  await script.dados().check();
  await saleForm.submit().click();
  await expect(saleForm.alert()).toContainText("Venda não enviada");
  const failedId = await submissionId();

  // Meanwhile the same customer buys the plan in another tab (a second try of its own if the token's back-off
  // still holds it): the failed sale, sent again, is answered as a known customer, and records nothing.
  const other = new SaleFormPage(await page.context().newPage());
  await other.goto();
  await other.fill(sale);
  await scriptOf(other.page).valor().check();
  await scriptOf(other.page).dados().check();
  await other.submit().click();
  await expect(other.status().or(other.alert())).toBeVisible();
  if (await other.alert().isVisible()) await other.submit().click();
  await expect(other.status()).toContainText("Venda aceita");
  await other.page.close();

  await saleForm.submit().click();
  await expect(saleForm.sendAnyway()).toBeVisible();
  expect(await submissionId()).toBe(failedId);

  // Another tick is another offer: a new sale, which the agent confirms for the known customer. It goes to the
  // provider (who holds the customer's plan already and refuses it), not refused here as a changed script.
  await script.ofertas().check();
  await expect(page.locator('input[name="submissionId"]')).not.toHaveValue(failedId);
  await saleForm.submit().click();
  const sent = (await sandboxStats()).saleRequests;
  await saleForm.sendAnyway().click();
  await expect(saleForm.alert()).toContainText("Venda recusada");
  await expect(saleForm.alert()).toContainText("O cliente já tem este plano");
  expect((await sandboxStats()).saleRequests).toBe(sent + 1);
});

test("Enter on a confirmation sends the sale, as in any field", async ({ saleForm, page }) => {
  const script = scriptOf(page);
  await saleForm.fill(customer("Plano Completo"));
  await script.valor().focus();
  await page.keyboard.press("Space");
  await expect(script.dados()).toBeFocused();
  await page.keyboard.press("Space");
  await expect(script.ofertas()).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(saleForm.status()).toContainText("Venda aceita");
  await expect(script.ofertas()).toHaveCount(0);
  expect((await sandboxStats()).salesAccepted).toBe(1);
});
