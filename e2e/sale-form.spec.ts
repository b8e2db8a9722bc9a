import { readFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import type { SaleInput } from "./pages/sale-form-page";
import { englishWordsIn } from "./support/english-words";
import { E2E_LOG_FILE } from "./support/environment";
import { formatCpf, freshCpf, sandboxControl, sandboxRequests, sandboxStats } from "./support/sandbox";

const PLAN = { name: "Plano Família", id: "a7d2e9b0-41c3-4f58-8e6a-2b9c0d7f1e35" };

function aSale(overrides: Partial<SaleInput> = {}): SaleInput {
  return {
    cpf: formatCpf(freshCpf()),
    name: "Maria Conceição D'Ávila",
    email: "Maria.Souza@Example.com",
    phone: "(11) 98765-4321",
    plan: PLAN.name,
    ...overrides,
  };
}

async function expectNoAxeViolations(page: Page) {
  // After a client-side navigation the URL changes before the new page (and its <title>) is in the document.
  await expect(page).toHaveTitle(/Partner Sales/);
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
}

test("a sale goes from the form to the provider, exactly as documented", async ({ saleForm }) => {
  const cpf = freshCpf();
  await saleForm.fill(aSale({ cpf: formatCpf(cpf), birthDate: "17/05/1990", externalId: "CRM-42" }));
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  await expect(saleForm.status()).toContainText("Venda de parceiro registrada.");

  const requests = await sandboxRequests();
  expect(requests).toHaveLength(1);
  expect(requests[0]?.path).toBe("/core/financeiro/partnersale");
  expect(JSON.parse(requests[0]!.rawBody)).toEqual({
    customerDocument: cpf,
    customerEmail: "maria.souza@example.com",
    customerPhone: "11987654321",
    customerName: "Maria Conceição D'Ávila",
    planId: PLAN.id,
    externalId: "CRM-42",
    birthDate: "1990-05-17",
  });
});

test("empty optional fields are left out of what is sent", async ({ saleForm }) => {
  await saleForm.fill(aSale());
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  const [request] = await sandboxRequests();
  expect(Object.keys(JSON.parse(request!.rawBody))).toEqual([
    "customerDocument",
    "customerEmail",
    "customerPhone",
    "customerName",
    "planId",
  ]);
});

test("an accepted sale leaves the form empty for the next customer, its protocol shown until the next edit", async ({
  saleForm,
  page,
}) => {
  const submissionId = () => page.locator('input[name="submissionId"]').inputValue();
  const first = await submissionId();
  await saleForm.fill(aSale());
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  await expect(saleForm.protocol()).toHaveText(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
  await expect(saleForm.cpf()).toHaveValue("");
  await expect(saleForm.plan()).toBeFocused();
  await expect(saleForm.newSale()).toHaveCount(0);
  expect(await submissionId()).not.toBe(first);

  await page.keyboard.type("E");
  await expect(saleForm.status()).toHaveCount(0);
  await saleForm.fill(aSale());
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  expect((await sandboxStats()).salesAccepted).toBe(2);
});

const invalidCases: [string, string, string][] = [
  ["CPF", "529.982.247-26", "CPF inválido: confira os dígitos verificadores."],
  ["CPF", "111.111.111-11", "CPF inválido: os dígitos não podem ser todos iguais."],
  ["Telefone", "(20) 98765-4321", "DDD inválido."],
  ["Telefone", "(11) 88765-4321", "Celular com 11 dígitos deve ter 9 logo após o DDD."],
  ["Data de nascimento", "31/02/2000", "Esta data não existe."],
  ["Data de nascimento", "01/01/2099", "A data de nascimento não pode estar no futuro."],
  ["E-mail", "maria@", "E-mail inválido: use o formato nome@dominio.com.br."],
];

for (const [label, value, message] of invalidCases) {
  test(`${label} "${value}" shows "${message}" and sends nothing`, async ({ saleForm, page }) => {
    await saleForm.fill(aSale());
    await page.getByLabel(label).fill(value);
    await saleForm.submit().click();
    await expect(page.getByLabel(label)).toHaveAccessibleDescription(
      new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")),
    );
    await expect(page.getByLabel(label)).toBeFocused();
    await expect(page.getByLabel(label)).toHaveAttribute("aria-invalid", "true");
    expect((await sandboxStats()).saleRequests).toBe(0);
  });
}

test("a landline typed with 11 digits is read as a mobile and refused", async ({ saleForm }) => {
  await saleForm.phone().fill("1133334444");
  await expect(saleForm.phone()).toHaveValue("(11) 3333-4444");
  await saleForm.phone().fill("11333344445");
  await saleForm.phone().blur();
  await expect(saleForm.phone()).toHaveAccessibleDescription(
    /Celular com 11 dígitos deve ter 9 logo após o DDD\./,
  );
});

test("an error appears as the agent leaves the field", async ({ saleForm }) => {
  await saleForm.cpf().fill("123");
  await saleForm.name().focus();
  await expect(saleForm.cpf()).toHaveAccessibleDescription("O CPF deve ter 11 dígitos.");
});

test("a birth date pasted without a digit is kept and refused, not emptied, and sends nothing", async ({
  saleForm,
  page,
}) => {
  await saleForm.fill(aSale());
  for (const pasted of ["ontem", "n/d"]) {
    await saleForm.birthDate().fill("");
    await saleForm.birthDate().focus();
    await page.keyboard.insertText(pasted);
    await expect(saleForm.birthDate()).toHaveValue(pasted);
    await saleForm.name().focus();
    await expect(saleForm.birthDate()).toHaveAttribute("aria-invalid", "true");
    await expect(saleForm.birthDate()).toHaveAccessibleDescription("Opcional. Use o formato DD/MM/AAAA.");
  }
  await saleForm.submit().click();
  await expect(saleForm.birthDate()).toBeFocused();
  expect((await sandboxStats()).saleRequests).toBe(0);
  // Backspace deletes it letter by letter, like any text.
  await saleForm.birthDate().press("End");
  for (let i = 0; i < 3; i++) await page.keyboard.press("Backspace");
  await expect(saleForm.birthDate()).toHaveValue("");
});

test("pasted CPFs, with or without punctuation, are masked", async ({ saleForm, page }) => {
  for (const pasted of ["529.982.247-25", "52998224725"]) {
    await saleForm.cpf().fill("");
    await saleForm.cpf().focus();
    await page.keyboard.insertText(pasted);
    await expect(saleForm.cpf()).toHaveValue("529.982.247-25");
  }
});

test("masks keep every keystroke typed with no delay", async ({ saleForm }) => {
  for (let round = 0; round < 5; round++) {
    for (const [field, typed, shown] of [
      [saleForm.cpf(), "52998224725", "529.982.247-25"],
      [saleForm.phone(), "11987654321", "(11) 98765-4321"],
      [saleForm.phone(), "1133334444", "(11) 3333-4444"],
      [saleForm.birthDate(), "17051990", "17/05/1990"],
    ] as const) {
      await field.fill("");
      await field.pressSequentially(typed, { delay: 0 });
      await expect(field).toHaveValue(shown);
    }
  }
});

test("backspace in the middle deletes a digit and keeps the caret in place", async ({ saleForm, page }) => {
  await saleForm.cpf().fill("52998224725");
  await saleForm.cpf().focus();
  // Caret right after the first dot: "529.|982…" — Backspace removes the 9 before the dot.
  await saleForm.cpf().evaluate((input: HTMLInputElement) => input.setSelectionRange(4, 4));
  await page.keyboard.press("Backspace");
  await expect(saleForm.cpf()).toHaveValue("529.822.472-5");
  expect(await saleForm.cpf().evaluate((input: HTMLInputElement) => input.selectionStart)).toBe(2);
  await page.keyboard.type("9");
  await expect(saleForm.cpf()).toHaveValue("529.982.247-25");
});

test("a double click and Enter-Enter send one sale", async ({ saleForm, page }) => {
  await saleForm.fill(aSale());
  await saleForm.submit().dblclick();
  await expect(saleForm.status()).toContainText("Venda aceita");
  expect((await sandboxStats()).saleRequests).toBe(1);

  await saleForm.fill(aSale());
  await saleForm.name().focus();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");
  await expect(saleForm.status()).toContainText("Venda aceita");
  expect((await sandboxStats()).saleRequests).toBe(2);
});

test("reloading after an accepted sale resends nothing", async ({ saleForm, page }) => {
  await saleForm.fill(aSale());
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  await page.reload();
  await expect(saleForm.cpf()).toHaveValue("");
  expect((await sandboxStats()).saleRequests).toBe(1);
});

test("a timeout says the sale could not be confirmed, after exactly one POST", async ({ saleForm }) => {
  await sandboxControl("POST", "faults", { kind: "timeout" });
  await saleForm.fill(aSale());
  await saleForm.submit().click();
  await expect(saleForm.alert()).toContainText("Venda a confirmar", { timeout: 15_000 });
  await expect(saleForm.alert()).toContainText("Não envie de novo");
  await expect(saleForm.alert()).toContainText(`Diga ao cliente: “Recebemos o seu pedido`);
  await expect(saleForm.newSale()).toBeFocused();
  await expect(saleForm.cpf()).toBeDisabled();
  expect((await sandboxStats()).saleRequests).toBe(1);
  await expectNoAxeViolations(saleForm.page);
});

test("a customer who already bought the plan here is flagged before sending; the provider's 409 marks the plan, and an edit starts over", async ({
  saleForm,
  page,
}) => {
  const sale = aSale();
  await saleForm.fill(sale);
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  const protocol = await saleForm.protocol().textContent();

  // Our own ledger knows: nothing is sent until the agent confirms.
  await saleForm.fill(sale);
  await saleForm.submit().click();
  await expect(saleForm.alert()).toContainText("Este cliente já tem este plano");
  await expect(saleForm.alert()).toContainText(protocol!);
  await expect(page.getByRole("heading", { name: "Este cliente já tem este plano" })).toBeFocused();
  expect((await sandboxStats()).saleRequests).toBe(1);
  await expectNoAxeViolations(page);
  expect(await englishWordsIn(page)).toEqual([]);

  // Sent anyway: the provider refuses it, the plan is marked and focused, the words say what to do.
  await saleForm.sendAnyway().click();
  await expect(saleForm.alert()).toContainText("Venda recusada");
  await expect(saleForm.alert()).toContainText("Ofereça outro plano ou confira o CPF");
  await expect(page.locator("[data-provider-message]")).toHaveText("O cliente já possui este plano.");
  await expect(saleForm.plan()).toHaveAccessibleDescription(
    /O cliente já tem este plano: ofereça outro ou confira o CPF\./,
  );
  await expect(saleForm.plan()).toBeFocused();
  await expectNoAxeViolations(page);
  // The provider's own words are quoted apart; everything else is pt-BR.
  expect(await englishWordsIn(page)).toEqual([]);
  const refused = await page.locator('input[name="submissionId"]').inputValue();

  // Another plan: the panel and the mark go, and the fix is a new submission.
  await saleForm.choosePlan("Plano Premium");
  await expect(saleForm.alert()).toHaveCount(0);
  await expect(saleForm.plan()).not.toHaveAttribute("aria-invalid", "true");
  await page.keyboard.press("Enter");
  await expect(saleForm.status()).toContainText("Venda aceita");
  expect((await sandboxStats()).salesAccepted).toBe(2);
  expect(await page.locator('input[name="submissionId"]').inputValue()).not.toBe(refused);
});

test("the provider's refusal is shown: the plan no longer exists (422)", async ({ saleForm }) => {
  await sandboxControl("POST", "plans/withdraw", { id: PLAN.id });
  await saleForm.fill(aSale());
  await saleForm.submit().click();
  await expect(saleForm.alert()).toContainText("O plano informado não existe.");
  await expect(saleForm.plan()).toHaveAccessibleDescription(/O fornecedor não reconhece este plano/);
  // Fixed, it goes as a new submission.
  await sandboxControl("POST", "reset");
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  expect((await sandboxStats()).salesAccepted).toBe(1);
});

test("revoked tokens are renewed once and the sale is accepted", async ({ saleForm }) => {
  await sandboxControl("POST", "tokens/revoke");
  await saleForm.fill(aSale());
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  const stats = await sandboxStats();
  expect(stats.saleResponses).toEqual({ "401": 1, "200": 1 });
  expect(stats.tokensIssued).toBe(1);
});

test("when nothing could be sent the agent may try again, with the same submission", async ({ saleForm }) => {
  await sandboxControl("POST", "tokens/revoke");
  await sandboxControl("POST", "faults", { kind: "503", target: "token", count: 1 });
  await saleForm.fill(aSale());
  await saleForm.submit().click();
  await expect(saleForm.alert()).toContainText("Venda não enviada");
  await expect(saleForm.submit()).toHaveText("Enviar de novo");
  await expect(saleForm.submit()).toBeFocused();
  await expectNoAxeViolations(saleForm.page);
  await saleForm.page.keyboard.press("Enter");
  await expect(saleForm.status()).toContainText("Venda aceita");
  expect((await sandboxStats()).salesAccepted).toBe(1);
});

test("the whole sale can be made with the keyboard alone", async ({ saleForm, page }) => {
  await expect(saleForm.plan()).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Tab");
  await expect(saleForm.cpf()).toBeFocused();
  await page.keyboard.type(freshCpf());
  await page.keyboard.press("Tab");
  await page.keyboard.type("João da Silva");
  await page.keyboard.press("Tab");
  await page.keyboard.type("joao@example.com");
  await page.keyboard.press("Tab");
  await page.keyboard.type("21987654321");
  // Enter in the last field sends the sale.
  await page.keyboard.press("Enter");
  await expect(saleForm.status()).toContainText("Venda aceita");
});

test("the sign-in page, the form and the accepted panel have no accessibility violations", async ({
  page,
  saleForm,
}) => {
  await expectNoAxeViolations(page);
  await saleForm.fill(aSale());
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  await expectNoAxeViolations(page);
  await page.getByRole("button", { name: "Sair", exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect(page.getByRole("button", { name: "Entrar" })).toBeVisible();
  await expectNoAxeViolations(page);
});

test("a sentinel CPF reaches no log line and no URL", async ({ saleForm, page }) => {
  const sentinel = freshCpf();
  const urls: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  await saleForm.fill(aSale({ cpf: sentinel }));
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  expect((await sandboxRequests())[0]?.rawBody).toContain(sentinel);

  const logs = readFileSync(E2E_LOG_FILE, "utf8");
  expect(logs).toContain('"event":"partner_api.sale"');
  expect(logs).not.toContain(sentinel);
  expect(logs).not.toContain(formatCpf(sentinel));
  expect(urls.filter((url) => url.includes(sentinel))).toEqual([]);
});

test("the same customer and plan again after an unconfirmed sale is flagged too, and Enter in a field never confirms it", async ({
  saleForm,
  page,
}) => {
  await sandboxControl("POST", "faults", { kind: "503", target: "sale", count: 1 });
  const sale = aSale();
  await saleForm.fill(sale);
  await saleForm.submit().click();
  await expect(saleForm.alert()).toContainText("Venda a confirmar");
  await saleForm.newSale().click();

  await saleForm.fill(sale);
  await saleForm.submit().click();
  await expect(saleForm.alert()).toContainText("Este cliente tem uma venda deste plano a confirmar");
  await saleForm.name().focus();
  await page.keyboard.press("Enter");
  await expect(saleForm.alert()).toContainText("Este cliente tem uma venda deste plano a confirmar");
  expect((await sandboxStats()).saleRequests).toBe(1);
  expect(await englishWordsIn(page)).toEqual([]);
});
