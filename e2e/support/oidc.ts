import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { signInMessageFor, type SignInErrorCode } from "../../lib/errors/sign-in";
import { expect } from "../fixtures";
import { IdpLoginPage } from "../pages/idp-login-page";
import { SignInPage } from "../pages/sign-in-page";
import { IDP, IDP_ISSUER } from "./environment";
import type { IdpUser } from "./identity-provider";

/** An app instance's settings for the test IdP: passwords and OIDC, auto-create on, the supervisor claim. */
export const oidcEnv = (extra: Record<string, string> = {}) => ({
  OIDC_ISSUER: IDP_ISSUER,
  OIDC_CLIENT_ID: IDP.clientId,
  OIDC_CLIENT_SECRET: IDP.clientSecret,
  OIDC_NAME: IDP.name,
  OIDC_ALLOWED_EMAIL_DOMAINS: IDP.allowedDomain,
  OIDC_ROLE_CLAIM: "realm_access.roles",
  OIDC_SUPERVISOR_VALUES: IDP.supervisorRole,
  OIDC_AUTO_CREATE: "on",
  PASSWORD_SIGN_IN: "on",
  ...extra,
});

/** A person at a desk of their own: a fresh browser context on the instance at `baseURL`. */
export async function newPage(browser: Browser, baseURL: string): Promise<Page> {
  return (await browser.newContext({ baseURL })).newPage();
}

/** From the app's sign-in page through the IdP's: lands wherever the app then sends the browser. */
export async function signInThroughIdp(page: Page, user: IdpUser) {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.oidc().click();
  await new IdpLoginPage(page).signIn(user);
}

/** Back on the sign-in page with the code's message. */
export async function expectRefused(page: Page, code: SignInErrorCode) {
  await expect(page).toHaveURL(new RegExp(`/sign-in\\?error=${code}$`));
  await expect(new SignInPage(page).alert()).toHaveText(signInMessageFor(code));
}

/** What Auth.js's session endpoint says of this browser (or request context): whose session, and its role. */
export const sessionOf = async (request: APIRequestContext) =>
  (await (await request.get("/api/auth/session")).json()) as { user?: { id: string; role: string } } | null;
