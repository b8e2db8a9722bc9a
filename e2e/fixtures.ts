import { test as base } from "@playwright/test";
import { SignInPage } from "./pages/sign-in-page";

export const test = base.extend<{ signInPage: SignInPage }>({
  signInPage: async ({ page }, provide) => {
    await provide(new SignInPage(page));
  },
});

export { expect } from "@playwright/test";
