import { expect, type Page } from "@playwright/test";

export interface SaleInput {
  cpf: string;
  name: string;
  email: string;
  phone: string;
  plan: string;
  birthDate?: string;
  externalId?: string;
}

export class SaleFormPage {
  constructor(readonly page: Page) {}

  readonly cpf = () => this.page.getByLabel("CPF");
  readonly name = () => this.page.getByLabel("Nome completo");
  readonly email = () => this.page.getByLabel("E-mail", { exact: true });
  readonly phone = () => this.page.getByLabel("Telefone");
  readonly plan = () => this.page.getByLabel("Plano");
  readonly birthDate = () => this.page.getByLabel("Data de nascimento");
  readonly externalId = () => this.page.getByLabel("ID do cliente no parceiro");
  readonly submit = () =>
    this.page.getByRole("button", { name: /^(Enviar venda|Enviando venda…|Enviar de novo)$/ });
  readonly sendAnyway = () => this.page.getByRole("button", { name: "Enviar mesmo assim" });
  readonly newSale = () => this.page.getByRole("button", { name: "Nova venda" });
  // The outcome panel (accepted: a status; anything else: an alert), not Next's route announcer, which is also
  // an alert, nor the slow-answer notice.
  readonly status = () => this.page.getByRole("main").locator('[role="status"][data-status]');
  readonly alert = () => this.page.getByRole("main").getByRole("alert");
  readonly protocol = () => this.status().or(this.alert()).locator("[data-protocol]");

  async goto() {
    await this.page.goto("/");
    await expect(this.cpf()).toBeVisible();
  }

  async fill(sale: SaleInput) {
    await this.cpf().fill(sale.cpf);
    await this.name().fill(sale.name);
    await this.email().fill(sale.email);
    await this.phone().fill(sale.phone);
    await this.choosePlan(sale.plan);
    if (sale.birthDate !== undefined) await this.birthDate().fill(sale.birthDate);
    if (sale.externalId !== undefined) await this.externalId().fill(sale.externalId);
  }

  /**
   * By the plan's name as the catalogue has it ("Plano Família"): its option starts with the part that tells it
   * apart ("Família — R$ 49,90 — …"), the name's shared first word being dropped for type-ahead.
   */
  async choosePlan(name: string) {
    const distinctive = name.replace(/^Plano\s+/, "");
    const option = this.plan()
      .locator("option")
      .filter({ hasText: new RegExp(`^${distinctive}( —|$)`) });
    await this.plan().selectOption((await option.getAttribute("value"))!);
  }

  errorFor(label: string) {
    return this.page.getByLabel(label).locator("xpath=..").locator('[id$="-error"]');
  }
}
