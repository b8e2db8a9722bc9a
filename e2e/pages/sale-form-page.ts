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
  readonly email = () => this.page.getByLabel("E-mail");
  readonly phone = () => this.page.getByLabel("Telefone");
  readonly plan = () => this.page.getByLabel("Plano");
  readonly birthDate = () => this.page.getByLabel("Data de nascimento");
  readonly externalId = () => this.page.getByLabel("ID do cliente no parceiro");
  readonly submit = () => this.page.getByRole("button", { name: /Enviar venda|Enviando venda/ });
  readonly newSale = () => this.page.getByRole("button", { name: "Nova venda" });
  // Within the page, not Next's route announcer, which is also an alert.
  readonly status = () => this.page.getByRole("main").getByRole("status");
  readonly alert = () => this.page.getByRole("main").getByRole("alert");

  async goto() {
    await this.page.goto("/");
    await expect(this.cpf()).toBeVisible();
  }

  async fill(sale: SaleInput) {
    await this.cpf().fill(sale.cpf);
    await this.name().fill(sale.name);
    await this.email().fill(sale.email);
    await this.phone().fill(sale.phone);
    await this.plan().selectOption({ label: sale.plan });
    if (sale.birthDate !== undefined) await this.birthDate().fill(sale.birthDate);
    if (sale.externalId !== undefined) await this.externalId().fill(sale.externalId);
  }

  errorFor(label: string) {
    return this.page.getByLabel(label).locator("xpath=..").locator('[id$="-error"]');
  }
}
