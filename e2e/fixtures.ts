import { test as base, type Page } from "@playwright/test";
import { SaleFormPage } from "./pages/sale-form-page";
import { SignInPage } from "./pages/sign-in-page";
import { DEMO_AGENT } from "./support/environment";
import { sandboxControl } from "./support/sandbox";

export const test = base.extend<{ signInPage: SignInPage; signedIn: Page; saleForm: SaleFormPage }>({
  signInPage: async ({ page }, provide) => {
    await provide(new SignInPage(page));
  },
  /** The page, signed in as the demo agent, with the sandbox's stats, faults and requests cleared. */
  signedIn: async ({ page }, provide) => {
    await sandboxControl("POST", "reset");
    const signIn = new SignInPage(page);
    await signIn.goto();
    await signIn.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
    await provide(page);
  },
  saleForm: async ({ signedIn }, provide) => {
    const form = new SaleFormPage(signedIn);
    await form.goto();
    await provide(form);
  },
});

export { expect } from "@playwright/test";
