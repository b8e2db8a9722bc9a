import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { SaleFormPage } from "./pages/sale-form-page";
import { SignInPage } from "./pages/sign-in-page";
import { englishWordsIn } from "./support/english-words";
import { DEMO_AGENT } from "./support/environment";
import { freshCpf, sandboxControl, sandboxStats } from "./support/sandbox";

// A 1366×768 screen minus the browser's own bars.
test.use({ viewport: { width: 1366, height: 657 } });

const FAMILIA = "a7d2e9b0-41c3-4f58-8e6a-2b9c0d7f1e35";
const COMPLETO = "5b0e7d21-3c84-4f9a-a6d2-8e1f0c9b7a43";

/**
 * Every key the agent presses, sorted into data, Tab, Enter and Space (an offer script's confirmation ticked);
 * anything else is a key the task should not need.
 */
class Keyboard {
  private keys = { data: 0, tab: 0, enter: 0, space: 0, other: [] as string[] };
  constructor(private readonly page: Page) {}

  async type(text: string) {
    await this.page.keyboard.type(text);
    this.keys.data += text.length;
  }
  async tab() {
    await this.page.keyboard.press("Tab");
    this.keys.tab += 1;
  }
  async enter() {
    await this.page.keyboard.press("Enter");
    this.keys.enter += 1;
  }
  async space() {
    await this.page.keyboard.press("Space");
    this.keys.space += 1;
  }
  /** The keys pressed since the last call. */
  take() {
    const keys = this.keys;
    this.keys = { data: 0, tab: 0, enter: 0, space: 0, other: [] };
    return { tab: keys.tab, enter: keys.enter, space: keys.space, other: keys.other };
  }
}

/** The plan by its first letter, then CPF, name, e-mail and phone; the optional fields are left alone. */
async function typeCustomer(keyboard: Keyboard, planInitial: string) {
  await keyboard.type(planInitial);
  await keyboard.tab();
  await typeCustomerData(keyboard);
}

/** CPF, name, e-mail and phone, from the CPF on. */
async function typeCustomerData(keyboard: Keyboard) {
  await keyboard.type(freshCpf());
  await keyboard.tab();
  await keyboard.type("Joana Prado");
  await keyboard.tab();
  await keyboard.type("joana@example.com");
  await keyboard.tab();
  await keyboard.type("21987654321");
}

async function expectNoAxeViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
}

test.beforeEach(async ({ page }) => {
  await sandboxControl("POST", "reset");
  // What took the focus, all along: "Sair" never may.
  await page.addInitScript(() => {
    const focused: string[] = [];
    (window as unknown as { focusedTexts: string[] }).focusedTexts = focused;
    document.addEventListener("focusin", (event) => {
      const target = event.target as HTMLElement;
      focused.push(target.getAttribute("aria-label") ?? target.textContent?.trim() ?? target.id);
    });
  });
});

test("sales made with the keyboard alone: data, Tab and one Enter each, the focus on the next action after every outcome", async ({
  page,
}) => {
  const keyboard = new Keyboard(page);
  const form = new SaleFormPage(page);
  const signIn = new SignInPage(page);

  // Sign-in: the cursor starts in E-mail and ends in the plan, the form's first field.
  await signIn.goto();
  await expect(signIn.email()).toBeFocused();
  await keyboard.type(DEMO_AGENT.email);
  await keyboard.tab();
  await keyboard.type(DEMO_AGENT.password);
  await keyboard.enter();
  await expect(form.plan()).toBeFocused();
  expect(keyboard.take()).toEqual({ tab: 1, enter: 1, space: 0, other: [] });

  // 1. Accepted: the form is the next customer's, the cursor in its plan, the protocol in view.
  await typeCustomer(keyboard, "F");
  await expect(form.plan()).toHaveValue(FAMILIA);
  await keyboard.enter();
  await expect(form.status()).toContainText("Venda aceita");
  await expect(form.plan()).toBeFocused();
  await expect(form.status()).toBeInViewport();
  expect(keyboard.take()).toEqual({ tab: 4, enter: 1, space: 0, other: [] });
  expect(await englishWordsIn(page)).toEqual([]);

  // 2. Rejected (the provider no longer sells the plan): the plan is marked and holds the cursor; another plan
  //    by its letter, and Enter sends the fix as a new sale.
  await sandboxControl("POST", "plans/withdraw", { id: FAMILIA });
  await typeCustomer(keyboard, "F");
  await keyboard.enter();
  await expect(form.alert()).toContainText("Venda recusada");
  await expect(form.plan()).toBeFocused();
  await expect(form.alert()).toBeInViewport();
  expect(keyboard.take()).toEqual({ tab: 4, enter: 1, space: 0, other: [] });
  expect(await englishWordsIn(page)).toEqual([]);
  await keyboard.type("P");
  await expect(form.alert()).toHaveCount(0);
  await keyboard.enter();
  await expect(form.status()).toContainText("Venda aceita");
  await expect(form.plan()).toBeFocused();
  expect(keyboard.take()).toEqual({ tab: 0, enter: 1, space: 0, other: [] });

  // 3. Unknown (the provider failed after receiving it): "Nova venda" holds the cursor, in view.
  await sandboxControl("POST", "faults", { kind: "503", target: "sale", count: 1 });
  await typeCustomer(keyboard, "E");
  await keyboard.enter();
  await expect(form.alert()).toContainText("Venda a confirmar");
  await expect(form.newSale()).toBeFocused();
  await expect(form.newSale()).toBeInViewport();
  expect(keyboard.take()).toEqual({ tab: 4, enter: 1, space: 0, other: [] });
  expect(await englishWordsIn(page)).toEqual([]);
  await keyboard.enter();
  await expect(form.plan()).toBeFocused();
  await expect(form.cpf()).toHaveValue("");
  keyboard.take();

  // 4. Failed (nothing could be sent): "Enviar de novo" holds the cursor; Enter sends the same submission.
  await sandboxControl("POST", "tokens/revoke");
  await sandboxControl("POST", "faults", { kind: "503", target: "token", count: 1 });
  await typeCustomer(keyboard, "E");
  await keyboard.enter();
  await expect(form.alert()).toContainText("Venda não enviada");
  await expect(form.submit()).toBeFocused();
  await expect(form.submit()).toBeInViewport();
  expect(keyboard.take()).toEqual({ tab: 4, enter: 1, space: 0, other: [] });
  expect(await englishWordsIn(page)).toEqual([]);
  await keyboard.enter();
  await expect(form.status()).toContainText("Venda aceita");
  expect((await sandboxStats()).salesAccepted).toBe(3);

  const focused = await page.evaluate(() => (window as unknown as { focusedTexts: string[] }).focusedTexts);
  expect(focused).not.toContain("Sair");
  expect(focused).not.toContain("Sair de todos os dispositivos");
});

test("a long wait says so after a few seconds and keeps the fields locked until the answer", async ({
  saleForm,
  page,
}) => {
  await page.clock.install();
  await page.reload();
  await sandboxControl("POST", "faults", { kind: "timeout" });
  await saleForm.fill({
    cpf: freshCpf(),
    name: "Joana Prado",
    email: "joana@example.com",
    phone: "(21) 98765-4321",
    plan: "Plano Essencial",
  });
  await saleForm.submit().click();
  await expect(saleForm.cpf()).toBeDisabled();
  await expect(saleForm.plan()).toBeDisabled();
  await expect(page.getByText("O fornecedor está demorando")).toHaveCount(0);
  // The upstream never answers; the app gives up on it after its own (real) timeout. Page time jumps ahead.
  await page.clock.fastForward(3_000);
  await expect(page.getByText("O fornecedor está demorando a responder")).toBeVisible();
  await expectNoAxeViolations(page);
  expect(await englishWordsIn(page)).toEqual([]);
  await expect(saleForm.alert()).toContainText("Venda a confirmar", { timeout: 15_000 });
  await expect(page.getByText("O fornecedor está demorando")).toHaveCount(0);
});

test("plans show their price and description, and the chosen one is described under the field", async ({
  saleForm,
}) => {
  await expect(saleForm.plan().locator("option")).toHaveText([
    "Selecione o plano",
    /^Essencial — R\$\s29,90 — Assinatura individual/,
    /^Família — R\$\s49,90 — Até quatro pessoas/,
    /^Premium — R\$\s89,90 — Todos os serviços/,
    /^Completo — R\$\s69,90 — Todos os serviços do Família/,
  ]);
  await saleForm.choosePlan("Plano Premium");
  await expect(saleForm.plan()).toHaveAccessibleDescription(/R\$\s89,90 — Todos os serviços/);
});

test("a scripted plan costs one key per confirmation: Space ticks it and moves on, Tab passes an optional one", async ({
  saleForm,
  page,
}) => {
  const keyboard = new Keyboard(page);
  const confirmation = (name: RegExp) => page.getByRole("checkbox", { name });
  const extra = (keys: ReturnType<Keyboard["take"]>, base: ReturnType<Keyboard["take"]>) =>
    keys.tab - base.tab + keys.space - base.space + keys.enter - base.enter + keys.other.length;
  await expect(saleForm.plan()).toBeFocused();

  // The same sale of a plan without a script: the plan, Tab, the data with Tab between the fields, Enter.
  await typeCustomer(keyboard, "F");
  await keyboard.enter();
  await expect(saleForm.status()).toContainText("Venda aceita");
  await expect(saleForm.plan()).toBeFocused();
  const unscripted = keyboard.take();
  expect(unscripted).toEqual({ tab: 4, enter: 1, space: 0, other: [] });

  // Completo's three confirmations, every one ticked: the Tab that leaves the plan reaches the first, a Space
  // ticks each and moves on, the last one's to the CPF. Three keys more, one per confirmation.
  await keyboard.type("C");
  await expect(saleForm.plan()).toHaveValue(COMPLETO);
  await keyboard.tab();
  await expect(confirmation(/aceitou o valor/)).toBeFocused();
  await keyboard.space();
  await expect(confirmation(/aceitou o valor/)).toBeChecked();
  await expect(confirmation(/autorizou o uso dos dados/)).toBeFocused();
  await keyboard.space();
  await expect(confirmation(/ofertas por e-mail/)).toBeFocused();
  await keyboard.space();
  await expect(saleForm.cpf()).toBeFocused();
  await typeCustomerData(keyboard);
  await keyboard.enter();
  await expect(saleForm.status()).toContainText("Venda aceita");
  await expect(saleForm.plan()).toBeFocused();
  const everyOne = keyboard.take();
  expect(everyOne).toEqual({ ...unscripted, space: 3 });
  expect(extra(everyOne, unscripted)).toBe(3);

  // The two required ones only: a Space each, and a Tab past the optional one the customer declined.
  await keyboard.type("C");
  await keyboard.tab();
  await keyboard.space();
  await keyboard.space();
  await expect(confirmation(/ofertas por e-mail/)).toBeFocused();
  await expect(confirmation(/ofertas por e-mail/)).not.toBeChecked();
  await keyboard.tab();
  await expect(saleForm.cpf()).toBeFocused();
  await typeCustomerData(keyboard);
  await keyboard.enter();
  await expect(saleForm.status()).toContainText("Venda aceita");
  const requiredOnly = keyboard.take();
  expect(requiredOnly).toEqual({ ...unscripted, tab: unscripted.tab + 1, space: 2 });
  expect(extra(requiredOnly, unscripted)).toBe(3);
  expect((await sandboxStats()).salesAccepted).toBe(3);
});
