import { expect, type Page } from "@playwright/test";
import { IDP_ISSUER } from "../support/environment";
import type { IdpUser } from "../support/identity-provider";

/** The test IdP's own login page (e2e/support/identity-provider.ts), where the app sends an agent to sign in. */
export class IdpLoginPage {
  /** `issuer`: the IdP's, when it is not the default test IdP (its login page is at its origin's root). */
  constructor(
    readonly page: Page,
    readonly issuer: string = IDP_ISSUER,
  ) {}

  readonly username = () => this.page.getByLabel("Usuário");
  readonly password = () => this.page.getByLabel("Senha da empresa");

  async expectShown() {
    await expect(this.page).toHaveURL(new RegExp(`^${new URL(this.issuer).origin}/interaction/`));
    await expect(this.page.getByRole("heading", { name: "Login da Parceira (IdP de teste)" })).toBeVisible();
  }

  async signIn(user: IdpUser) {
    await this.expectShown();
    await this.username().fill(user.username);
    await this.password().fill(user.password);
    await this.page.getByRole("button", { name: "Continuar" }).click();
  }

  async cancel() {
    await this.expectShown();
    await this.page.getByRole("button", { name: "Cancelar" }).click();
  }
}
