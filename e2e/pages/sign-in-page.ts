import { expect, type Browser, type Page } from "@playwright/test";

export class SignInPage {
  constructor(readonly page: Page) {}

  readonly email = () => this.page.getByLabel("E-mail");
  readonly password = () => this.page.getByLabel("Senha");
  readonly submit = () => this.page.getByRole("button", { name: "Entrar", exact: true });
  /** The partner IdP's button, "Entrar com <OIDC_NAME>", where OIDC is configured. */
  readonly oidc = () => this.page.getByRole("button", { name: /^Entrar com / });
  // Within the page, not Next's route announcer, which is also an alert.
  readonly alert = () => this.page.getByRole("main").getByRole("alert");

  async goto() {
    await this.page.goto("/sign-in");
  }

  async signIn(email: string, password: string) {
    await this.email().fill(email);
    await this.password().fill(password);
    // Wait for the server action's answer, so repeated attempts never overlap.
    const [answer] = await Promise.all([
      this.page.waitForResponse((response) => response.request().method() === "POST"),
      this.submit().click(),
    ]);
    // An accepted sign-in redirects (Next.js names the page in x-action-redirect): wait until the browser is
    // there, or a test's own page.goto would race the redirect and be aborted by it.
    if (answer.headers()["x-action-redirect"]) {
      await this.page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
    } else {
      // Refused: React resets the form once it has rendered the answer (the e-mail typed comes back, the password
      // goes), which can be after the response arrived here. A next attempt typed before that would be undone and
      // the same e-mail sent again (seen in a fresh clone: "ninguem@…" typed, the previous agent's e-mail sent).
      await expect(this.submit()).toBeEnabled();
      await expect(this.password()).toHaveValue("");
    }
  }

  async expectShown() {
    await expect(this.page).toHaveURL(/\/sign-in/);
    await expect(this.submit()).toBeVisible();
  }
}

/** A second person at another desk: a fresh browser context, signed in. Close its context when done. */
export async function signInElsewhere(browser: Browser, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(email, password);
  return page;
}
