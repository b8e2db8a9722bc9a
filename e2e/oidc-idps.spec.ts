import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "@playwright/test";
import { freePort } from "../bench/lib/processes";
import { signInMessageFor } from "../lib/errors/sign-in";
import { expect, test } from "./fixtures";
import { IdpLoginPage } from "./pages/idp-login-page";
import { SignInPage } from "./pages/sign-in-page";
import { startAppInstance, type AppInstance } from "./support/app-instance";
import { ENTERPRISE_ROLE_CLIENT, IDP_USERS, type IdpUser } from "./support/identity-provider";
import {
  startIdentityProviderProcess,
  type IdentityProviderProcess,
} from "./support/identity-provider-process";
import { expectRefused, newPage, sessionOf } from "./support/oidc";
import { logLines } from "./support/security-lines";

// A partner's IdP set up the way enterprise ones often are, in a process of its own: an issuer with a path, ID
// tokens signed ES256 or PS256 (a key each) and good for 20 s, the e-mail only in `preferred_username` with no
// `email_verified`, the supervisor role under a client whose name holds a dot, one client held to
// client_secret_post and one to private_key_jwt (whose assertions it checks with oidc-provider's own 15 s of
// tolerance), and a clock 90 s behind ours. Each app instance is set up as an
// operator would for one case, and stopped after it.
test.describe.configure({ mode: "serial" });

const POST_CLIENT = { id: "vendas-post", secret: "e2e-post-client-secret-5d1c9a7f3b" };
const JWT_CLIENT = { id: "vendas-jwt", keyId: "vendas-2026" };
const CLOCK_BEHIND_SECONDS = 90;

let idp: IdentityProviderProcess;
let ports: number[] = [];
let keyDir: string;
let keyFile: string;
let app: AppInstance | undefined;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
  keyDir = mkdtempSync(join(tmpdir(), "partner-sales-client-key-"));
  keyFile = join(keyDir, "client.pem");
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }));
  const publicJwk = {
    ...publicKey.export({ format: "jwk" }),
    kid: JWT_CLIENT.keyId,
    use: "sig",
    alg: "PS256",
  };
  idp = await startIdentityProviderProcess(
    ports.map((port) => `http://localhost:${port}`),
    {
      port: await freePort(),
      issuerPath: "/realms/parceira",
      claimsStyle: "enterprise",
      idTokenSeconds: 20,
      signingAlgorithms: ["ES256", "PS256"],
      clients: [
        {
          client_id: POST_CLIENT.id,
          client_secret: POST_CLIENT.secret,
          // oidc-provider then refuses any other method for this client, HTTP Basic included.
          token_endpoint_auth_method: "client_secret_post",
          id_token_signed_response_alg: "ES256",
        },
        {
          client_id: JWT_CLIENT.id,
          token_endpoint_auth_method: "private_key_jwt",
          token_endpoint_auth_signing_alg: "PS256",
          jwks: { keys: [publicJwk] },
          id_token_signed_response_alg: "PS256",
        },
      ],
    },
    -CLOCK_BEHIND_SECONDS,
  );
});

test.afterEach(async () => {
  await app?.stop();
  app = undefined;
});

test.afterAll(async () => {
  await idp?.stop();
  if (keyDir) rmSync(keyDir, { recursive: true, force: true });
});

/** The operator's settings for this IdP: the e-mail claim trusted, the dotted role path, a 120 s tolerance. */
const enterpriseEnv = (extra: Record<string, string> = {}) => ({
  OIDC_ISSUER: idp.issuer,
  OIDC_CLIENT_ID: POST_CLIENT.id,
  OIDC_CLIENT_SECRET: POST_CLIENT.secret,
  OIDC_CLIENT_AUTH_METHOD: "client_secret_post",
  OIDC_NAME: "Login Corporativo",
  OIDC_ALLOWED_EMAIL_DOMAINS: "parceira.example",
  OIDC_EMAIL_CLAIM: "preferred_username",
  OIDC_TRUST_UNVERIFIED_EMAILS: idp.issuer,
  OIDC_ROLE_CLAIM: `resource_access["${ENTERPRISE_ROLE_CLIENT}"].roles`,
  OIDC_SUPERVISOR_VALUES: "supervisor",
  OIDC_CLOCK_TOLERANCE_SECONDS: "120",
  PASSWORD_SIGN_IN: "on",
  ...extra,
});

async function startApp(index: number, extra: Record<string, string> = {}) {
  app = await startAppInstance(ports[index]!, enterpriseEnv(extra));
  return app;
}

async function signInAt(browser: Browser, instance: AppInstance, user: IdpUser): Promise<Page> {
  const page = await newPage(browser, instance.url);
  await new SignInPage(page).goto();
  await new SignInPage(page).oidc().click();
  await new IdpLoginPage(page, idp.issuer).signIn(user);
  return page;
}

const linesOf = (instance: AppInstance, event: string) => logLines(instance.log(), event);

const landed = async (page: Page) => {
  await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
};

test("client_secret_post, the e-mail from preferred_username, a role under a dotted key, a clock 90 s behind", async ({
  browser,
}) => {
  const instance = await startApp(0);
  const supervisor = await signInAt(browser, instance, IDP_USERS.lia);
  await landed(supervisor);
  const session = (await (await supervisor.request.get("/api/auth/session")).json()) as {
    user: { role: string; email: string; name: string };
  };
  expect(session.user).toMatchObject({
    role: "supervisor",
    email: IDP_USERS.lia.email,
    name: IDP_USERS.lia.name,
  });
  expect(linesOf(instance, "auth.oidc_sign_in")).toEqual([
    expect.objectContaining({ outcome: "created", role: "supervisor", roleClaimPresent: true }),
  ]);
  await supervisor.context().close();

  // Someone the IdP gives no role under that client is an agent.
  const agent = await signInAt(browser, instance, IDP_USERS.marcos);
  await landed(agent);
  expect((await sessionOf(agent.request))?.user?.role).toBe("agent");
  await agent.context().close();
});

test("the same client over HTTP Basic, which the IdP refuses for it: the page names the configuration", async ({
  browser,
}) => {
  const instance = await startApp(1, { OIDC_CLIENT_AUTH_METHOD: "" });
  const page = await signInAt(browser, instance, IDP_USERS.lia);
  await expectRefused(page, "oidc_misconfigured");
  await expect(new SignInPage(page).alert()).toContainText("configuração do provedor de identidade");
  expect(linesOf(instance, "auth.oidc_sign_in_failed")).toEqual([
    expect.objectContaining({
      stage: "callback",
      reason: "oidc_misconfigured",
      idpError: "invalid_client",
      idpErrorFrom: "token",
    }),
  ]);
  await page.context().close();
});

test("a wrong client secret: the log names invalid_client, and nobody is let in or created", async ({
  browser,
}) => {
  const secret = "a-secret-that-expired-at-the-idp";
  const instance = await startApp(2, { OIDC_CLIENT_SECRET: secret });
  const page = await signInAt(browser, instance, IDP_USERS.lia);
  await expectRefused(page, "oidc_misconfigured");
  expect(await sessionOf(page.request)).toBeNull();
  const [failed] = linesOf(instance, "auth.oidc_sign_in_failed");
  expect(failed).toMatchObject({ reason: "oidc_misconfigured", idpError: "invalid_client" });
  expect(linesOf(instance, "auth.sign_in")).toEqual([
    expect.objectContaining({ outcome: "failure", reason: "oidc_misconfigured", door: `oidc:${idp.issuer}` }),
  ]);
  expect(instance.log()).not.toContain(secret);
  await page.context().close();
});

test("private_key_jwt: the app proves itself with its key, and holds no secret", async ({ browser }) => {
  const instance = await startApp(3, {
    OIDC_CLIENT_ID: JWT_CLIENT.id,
    OIDC_CLIENT_SECRET: "",
    OIDC_CLIENT_AUTH_METHOD: "private_key_jwt",
    OIDC_CLIENT_PRIVATE_KEY_FILE: keyFile,
    OIDC_CLIENT_KEY_ID: JWT_CLIENT.keyId,
    OIDC_CLIENT_KEY_ALG: "PS256",
  });
  const page = await signInAt(browser, instance, IDP_USERS.lia);
  await landed(page);
  expect((await sessionOf(page.request))?.user?.role).toBe("supervisor");
  await page.context().close();
});

test("without the operator's trust in the IdP, an e-mail from preferred_username is refused", async ({
  browser,
}) => {
  const instance = await startApp(4, { OIDC_TRUST_UNVERIFIED_EMAILS: "" });
  const page = await signInAt(browser, instance, IDP_USERS.marcos);
  await expectRefused(page, "oidc_email_unverified");
  expect(linesOf(instance, "auth.oidc_sign_in_refused")).toEqual([
    expect.objectContaining({ reason: "oidc_email_unverified" }),
  ]);
  await page.context().close();
});

test("with the default 60 s tolerance, the short-lived ID token of an IdP 90 s behind is refused", async ({
  browser,
}) => {
  const instance = await startApp(5, { OIDC_CLOCK_TOLERANCE_SECONDS: "" });
  const page = await signInAt(browser, instance, IDP_USERS.lia);
  await expectRefused(page, "oidc_failed");
  await expect(new SignInPage(page).alert()).toHaveText(signInMessageFor("oidc_failed"));
  const [failed] = linesOf(instance, "auth.oidc_sign_in_failed");
  expect(failed).toMatchObject({ reason: "oidc_failed" });
  expect(String(failed!.detail)).toContain('"exp"');
  await page.context().close();
});
