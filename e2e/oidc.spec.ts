import { request as playwrightRequest, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import pg from "pg";
import { freePort } from "../bench/lib/processes";
import { signInMessageFor, type SignInErrorCode } from "../lib/errors/sign-in";
import { expect, test } from "./fixtures";
import { IdpLoginPage } from "./pages/idp-login-page";
import { SignInPage } from "./pages/sign-in-page";
import { agentsCli } from "./support/agents-cli";
import { startAppInstance, type AppInstance } from "./support/app-instance";
import { DEMO_AGENT, IDP, IDP_ISSUER } from "./support/environment";
import { expectRefused, newPage, oidcEnv, sessionOf, signInThroughIdp } from "./support/oidc";
import { IDP_USERS, startIdentityProvider, type RunningIdentityProvider } from "./support/identity-provider";
import { apiSale } from "./support/sandbox";

// The partner's IdP (oidc-provider on 127.0.0.1) and two app instances of this spec's own: one with passwords and
// OIDC_AUTO_CREATE on, one with PASSWORD_SIGN_IN=off and OIDC_AUTO_CREATE=off. The IdP is stopped and started
// again in the middle, so the file runs in order.
test.describe.configure({ mode: "serial" });

let idp: RunningIdentityProvider;
let origins: string[] = [];
let app: AppInstance;
let ssoOnly: AppInstance | undefined;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const ports = [await freePort(), await freePort()];
  origins = ports.map((port) => `http://localhost:${port}`);
  idp = await startIdentityProvider(origins);
  app = await startAppInstance(ports[0]!, oidcEnv());
});

test.afterAll(async () => {
  await app?.stop();
  await ssoOnly?.stop();
  await idp?.stop();
});

async function expectNoAxeViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
}

test.describe("with passwords and OIDC", () => {
  test("an agent signs in through the IdP's login page and lands on the form, with PKCE, state and nonce", async ({
    browser,
  }) => {
    const page = await newPage(browser, app.url);
    const authorization = page.waitForRequest((request) => request.url().startsWith(`${IDP_ISSUER}/auth`));
    await new SignInPage(page).goto();
    await expect(page.getByLabel("E-mail")).toBeFocused();
    await expectNoAxeViolations(page);
    await new SignInPage(page).oidc().click();

    const sent = new URL((await authorization).url()).searchParams;
    expect(Object.fromEntries(sent)).toMatchObject({
      response_type: "code",
      client_id: IDP.clientId,
      scope: "openid email profile",
      redirect_uri: `${app.url}/api/auth/callback/oidc`,
      code_challenge_method: "S256",
    });
    for (const parameter of ["state", "nonce", "code_challenge"]) expect(sent.get(parameter)).toBeTruthy();
    expect(sent.has("client_secret")).toBe(false);
    // The checks wait in HttpOnly cookies of the app's, for the 15 minutes a sign-in may take.
    const checks = (await page.context().cookies(app.url)).filter((cookie) =>
      /^authjs\.(state|nonce|pkce\.code_verifier)$/.test(cookie.name),
    );
    expect(checks.map((cookie) => cookie.name).sort()).toEqual([
      "authjs.nonce",
      "authjs.pkce.code_verifier",
      "authjs.state",
    ]);
    for (const cookie of checks) expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });

    await new IdpLoginPage(page).signIn(IDP_USERS.agent);
    await expect(page).toHaveURL(`${app.url}/`);
    await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
    await expect(page.getByRole("banner")).toContainText(IDP_USERS.agent.name);
    expect((await sessionOf(page.request))?.user?.role).toBe("agent");
    await page.context().close();
  });

  test("a second sign-in of the same person reuses the agent; sign-out ends the session and offers the IdP's", async ({
    browser,
  }) => {
    const page = await newPage(browser, app.url);
    await signInThroughIdp(page, IDP_USERS.agent);
    await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
    const first = (await sessionOf(page.request))?.user?.id;
    const cookie = (await page.context().cookies(app.url))
      .map((each) => `${each.name}=${each.value}`)
      .join("; ");

    await page.getByRole("button", { name: "Sair", exact: true }).click();
    await expect(page).toHaveURL(/\/sign-in\?signedOut=oidc$/);
    // The session ended on the server: a copy of its cookie is refused.
    const replayed = await page.request.post("/api/sales", {
      data: apiSale(),
      headers: { cookie, "Idempotency-Key": crypto.randomUUID(), Origin: app.url },
    });
    expect(replayed.status()).toBe(401);

    // Still signed in at the IdP: the next sign-in shows no login page there, and is the same agent.
    const loginPages = idp.loginPagesShown();
    await new SignInPage(page).oidc().click();
    await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
    expect(idp.loginPagesShown()).toBe(loginPages);
    expect((await sessionOf(page.request))?.user?.id).toBe(first);
    const listed = await agentsCli(["list"], { DATA_DIR: app.dataDir });
    expect(
      listed.stdout.split("\n").filter((line) => line.startsWith(`${IDP_USERS.agent.email} `)),
    ).toHaveLength(1);

    // RP-initiated logout: out of the app, then out of the IdP, and back on the sign-in page.
    await page.getByRole("button", { name: "Sair", exact: true }).click();
    await page.getByRole("link", { name: `Sair também de ${IDP.name}` }).click();
    await expect(page.getByRole("heading", { name: "Sair do login da Parceira?" })).toBeVisible();
    await page.getByRole("button", { name: "Sair" }).click();
    await expect(page).toHaveURL(`${app.url}/sign-in`);
    await new SignInPage(page).oidc().click();
    await new IdpLoginPage(page).expectShown();
    await page.context().close();
  });

  test("the supervisor claim gives the supervisor role: /sales shows everyone's", async ({ browser }) => {
    const agent = await newPage(browser, app.url);
    await signInThroughIdp(agent, IDP_USERS.agent);
    await expect(agent.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
    const sale = await agent.request.post("/api/sales", {
      data: apiSale(),
      headers: { "Idempotency-Key": crypto.randomUUID(), Origin: app.url },
    });
    expect(sale.status()).toBe(201);
    await agent.context().close();

    const supervisor = await newPage(browser, app.url);
    await signInThroughIdp(supervisor, IDP_USERS.supervisor);
    await expect(supervisor.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
    expect((await sessionOf(supervisor.request))?.user?.role).toBe("supervisor");
    expect(app.log()).toContain('"outcome":"created","role":"supervisor","roleClaimPresent":true');
    await supervisor.goto("/sales");
    await expect(supervisor.getByRole("columnheader", { name: "Agente" })).toBeVisible();
    await expect(supervisor.getByRole("cell", { name: IDP_USERS.agent.name }).first()).toBeVisible();
    await supervisor.context().close();
  });

  test("the session endpoint answers the live name and role: both changed by a later sign-in through the IdP", async ({
    browser,
  }) => {
    const user = IDP_USERS.lucas;
    const signedIn = async () => {
      const page = await newPage(browser, app.url);
      await signInThroughIdp(page, user);
      await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
      return page;
    };
    type Answer = { user?: { id: string; role: string; name: string; email: string } } | null;
    const answer = async (page: Page) =>
      (await (await page.request.get("/api/auth/session")).json()) as Answer;

    const first = await signedIn();
    expect((await answer(first))?.user).toMatchObject({ role: "supervisor", name: user.name });
    // The IdP renames them; their next sign-in (another desk) brings the name, which the first session answers too.
    idp.rename(user, "Lucas Prado Filho");
    const second = await signedIn();
    for (const page of [first, second]) {
      expect((await answer(page))?.user).toMatchObject({ role: "supervisor", name: "Lucas Prado Filho" });
    }
    // The account's e-mail changed in the database (as an operator's correction would): the answer follows it.
    const database = new pg.Client({ host: app.dataDir, port: 5432, user: "postgres", database: "postgres" });
    await database.connect();
    try {
      const { id } = (await answer(first))!.user!;
      await database.query("update agents set email = $1 where id = $2", [
        "lucas.prado@parceira.example",
        id,
      ]);
      expect((await answer(first))?.user).toMatchObject({ email: "lucas.prado@parceira.example" });
    } finally {
      await database.end();
    }
    // The IdP takes the role away: the next sign-in is an agent's, and so, at once, are the sessions already open.
    idp.setRoles(user, []);
    const third = await signedIn();
    for (const page of [first, second, third]) {
      expect((await answer(page))?.user).toMatchObject({ role: "agent", name: "Lucas Prado Filho" });
    }
    // The pages say the same: the supervisor's dashboard is not found for the first desk any more.
    expect((await first.goto("/dashboard"))?.status()).toBe(404);
    for (const page of [first, second, third]) await page.context().close();
  });

  test("a person whose e-mail domain is not allowed is refused with its message", async ({ browser }) => {
    const page = await newPage(browser, app.url);
    await signInThroughIdp(page, IDP_USERS.outsider);
    await expectRefused(page, "oidc_domain_refused");
    await page.context().close();
  });

  test("a disabled agent is refused with its message, whatever the IdP says", async ({ browser }) => {
    const page = await newPage(browser, app.url);
    await signInThroughIdp(page, IDP_USERS.toBeDisabled);
    await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
    const disabled = await agentsCli(["disable", "--email", IDP_USERS.toBeDisabled.email], {
      DATA_DIR: app.dataDir,
    });
    expect(disabled.status).toBe(0);
    // Out on the next request, and the IdP's session does not bring the agent back in.
    await page.reload();
    await new SignInPage(page).oidc().click();
    await expectRefused(page, "oidc_account_disabled");
    await page.context().close();
  });

  test("an agent who cancels at the IdP reads that it was cancelled", async ({ browser }) => {
    const page = await newPage(browser, app.url);
    await new SignInPage(page).goto();
    await new SignInPage(page).oidc().click();
    await new IdpLoginPage(page).cancel();
    await expectRefused(page, "oidc_cancelled");
    // The message is a notice until the password form answers for itself.
    await new SignInPage(page).signIn(DEMO_AGENT.email, "senha-errada");
    await expect(new SignInPage(page).alert()).toHaveText(signInMessageFor("invalid_credentials"));
    await page.context().close();
  });

  test("the callback answers forged state, replayed codes and garbage with the sign-in page and a fixed reason", async ({
    browser,
  }) => {
    // A real sign-in, its callback request captured with the check cookies it carried.
    const page = await newPage(browser, app.url);
    // (The IdP redirects to the callback, and page.route sees no redirect: the request event does.)
    const callbackRequest = page.waitForRequest(
      (request) => new URL(request.url()).pathname === "/api/auth/callback/oidc",
    );
    await signInThroughIdp(page, IDP_USERS.agent);
    await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
    const callback = {
      url: (await callbackRequest).url(),
      cookie: (await (await callbackRequest).allHeaders()).cookie ?? "",
    };
    await page.context().close();
    expect(callback.cookie).toContain("authjs.state=");
    const real = new URL(callback.url).searchParams;
    const code = real.get("code")!;
    /** The real callback's query (code, state, iss) with some parameters changed, added or removed. */
    const query = (changes: Record<string, string | string[] | null>) => {
      const changed = new URLSearchParams(real);
      for (const [name, value] of Object.entries(changes)) {
        changed.delete(name);
        for (const each of value === null ? [] : [value].flat()) changed.append(name, each);
      }
      return `?${changed}`;
    };
    const cookie = callback.cookie;
    const cases: [string, string, string, SignInErrorCode][] = [
      ["the same code again, with its cookies", query({}), cookie, "oidc_failed"],
      ["a forged state with the real cookies", query({ state: "forged" }), cookie, "oidc_state_mismatch"],
      ["no state", query({ state: null }), cookie, "oidc_state_mismatch"],
      ["the real state without its cookies", query({}), "", "oidc_state_mismatch"],
      ["no parameters at all", "", "", "oidc_state_mismatch"],
      ["another issuer", query({ iss: "https://evil.example" }), cookie, "oidc_failed"],
      ["no issuer (RFC 9207: the IdP always sends it)", query({ iss: null }), cookie, "oidc_failed"],
      ["a code twice", query({ code: [code, "other"] }), cookie, "oidc_failed"],
      ["a 6,000-character code", query({ code: "x".repeat(6_000) }), cookie, "oidc_failed"],
      ["a NUL and a bad escape", `${query({ code: "\u0000" })}&x=%`, cookie, "oidc_failed"],
      [
        "the IdP's error with markup, on a forged state",
        query({ code: null, state: "x", error: "<script>alert(1)</script>" }),
        cookie,
        "oidc_state_mismatch",
      ],
      [
        "the IdP's error on the real state: its own trouble",
        query({ code: null, error: "server_error" }),
        cookie,
        "oidc_unreachable",
      ],
      [
        "the IdP's error on the real state: a client it does not allow",
        query({ code: null, error: "unauthorized_client" }),
        cookie,
        "oidc_misconfigured",
      ],
    ];
    const client = await playwrightRequest.newContext({ baseURL: app.url });
    // Anonymous callbacks with state cookies we never sealed are refused before anything is asked of the IdP.
    const served = idp.requestsServed();
    for (const junk of ["authjs.state=junk", `authjs.state=${"e".repeat(300)}`, "authjs.state=a.b.c.d.e"]) {
      const answer = await client.get(`/api/auth/callback/oidc${query({})}`, {
        headers: { cookie: junk },
        maxRedirects: 0,
      });
      expect(answer.headers().location, junk).toBe(`${app.url}/sign-in?error=oidc_state_mismatch`);
    }
    expect(idp.requestsServed()).toBe(served);
    for (const [name, search, cookieHeader, reason] of cases) {
      const answer = await client.get(`/api/auth/callback/oidc${search}`, {
        headers: cookieHeader ? { cookie: cookieHeader } : {},
        maxRedirects: 0,
      });
      expect(answer.status(), name).toBe(302);
      expect(answer.headers().location, name).toBe(`${app.url}/sign-in?error=${reason}`);
    }
    await client.dispose();

    // The page says what the code means and shows nothing of the address it came with.
    const shown = await newPage(browser, app.url);
    await shown.goto("/sign-in?error=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E");
    await expect(new SignInPage(shown).alert()).toHaveText(signInMessageFor("sign_in_unavailable"));
    await expect(shown.locator("img")).toHaveCount(0);
    await shown.goto("/sign-in?error=AccessDenied");
    await expect(new SignInPage(shown).alert()).toHaveText(signInMessageFor("sign_in_unavailable"));
    await shown.context().close();

    expect((await fetch(`${app.url.replace("localhost", "127.0.0.1")}/api/health`)).status).toBe(200);
    // Each refusal has its log line, with a reason and no code, token or secret.
    const log = app.log();
    expect(log).toContain(
      '"event":"auth.oidc_sign_in_failed","stage":"callback","reason":"oidc_state_mismatch"',
    );
    expect(log).toContain(
      '"error":"CallbackRouteError/OAUTH_RESPONSE_BODY_ERROR","detail":"invalid_grant","idpError":"invalid_grant","idpErrorFrom":"token"',
    );
    expect(log).not.toContain(code);
  });

  test("with the IdP stopped: its message, and passwords still work", async ({ browser }) => {
    await idp.stop();
    try {
      const page = await newPage(browser, app.url);
      const signIn = new SignInPage(page);
      await signIn.goto();
      await signIn.oidc().click();
      await expectRefused(page, "oidc_unreachable");
      // Ready for another try once the IdP is back; meanwhile, the password.
      await expect(signIn.oidc()).toBeEnabled();
      await signIn.signIn(DEMO_AGENT.email, DEMO_AGENT.password);
      await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
      await page.context().close();
      expect(app.log()).toContain('"reason":"oidc_unreachable","detail":"ECONNREFUSED"');
    } finally {
      idp = await startIdentityProvider(origins);
    }
  });
});

test.describe("with PASSWORD_SIGN_IN=off and OIDC_AUTO_CREATE=off", () => {
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    const port = Number(new URL(origins[1]!).port);
    ssoOnly = await startAppInstance(port, oidcEnv({ PASSWORD_SIGN_IN: "off", OIDC_AUTO_CREATE: "off" }));
  });

  test("the password form is absent, the IdP's button takes the focus, and the password endpoint refuses", async ({
    browser,
  }) => {
    const page = await newPage(browser, ssoOnly!.url);
    const signIn = new SignInPage(page);
    await signIn.goto();
    await expect(signIn.oidc()).toBeFocused();
    await expect(page.getByLabel("E-mail")).toHaveCount(0);
    await expect(page.getByLabel("Senha")).toHaveCount(0);
    await expect(page.getByText("Entre com a conta da sua empresa.")).toBeVisible();
    await expectNoAxeViolations(page);

    const { csrfToken } = (await (await page.request.get("/api/auth/csrf")).json()) as { csrfToken: string };
    const refused = await page.request.post("/api/auth/callback/credentials", {
      form: { email: DEMO_AGENT.email, password: DEMO_AGENT.password, csrfToken },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(404);
    expect(await refused.json()).toEqual({
      error: "password_sign_in_off",
      message: signInMessageFor("password_sign_in_off"),
    });
    expect((await page.request.get("/", { maxRedirects: 0 })).status()).toBe(307);
    await page.context().close();
  });

  test("someone no operator added is refused; once the e-mail is added, the first sign-in links the account", async ({
    browser,
  }) => {
    const env = { DATA_DIR: ssoOnly!.dataDir };
    const page = await newPage(browser, ssoOnly!.url);
    await signInThroughIdp(page, IDP_USERS.preRegistered);
    await expectRefused(page, "oidc_not_registered");

    const added = await agentsCli(
      [
        "add",
        "--email",
        IDP_USERS.preRegistered.email,
        "--name",
        "Elisa (cadastro)",
        "--role",
        "supervisor",
        "--no-password",
      ],
      env,
    );
    expect(added.stdout).toContain(
      "(no password: link its IdP or portal identity with npm run agents -- link)",
    );
    // The e-mail alone links nothing: the operator invites the account to the IdP's first sign-in with it.
    await new SignInPage(page).oidc().click();
    await expectRefused(page, "oidc_account_conflict");
    const cliEnv = { ...env, ...oidcEnv(), AUTH_URL: ssoOnly!.url };
    const invited = await agentsCli(["link", "--email", IDP_USERS.preRegistered.email, "--idp"], cliEnv);
    expect(invited.stdout).toContain(`Invited ${IDP_USERS.preRegistered.email}`);
    await new SignInPage(page).oidc().click();
    await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
    // The IdP's name and role now: no supervisor claim, so an agent.
    await expect(page.getByRole("banner")).toContainText(IDP_USERS.preRegistered.name);
    expect((await sessionOf(page.request))?.user?.role).toBe("agent");
    await page.context().close();

    // An e-mail the IdP has not verified never takes an invitation.
    await agentsCli(["add", "--email", IDP_USERS.unverified.email, "--name", "Fábio"], env);
    await agentsCli(["link", "--email", IDP_USERS.unverified.email, "--idp"], cliEnv);
    const unverified = await newPage(browser, ssoOnly!.url);
    await signInThroughIdp(unverified, IDP_USERS.unverified);
    await expectRefused(unverified, "oidc_email_unverified");
    await unverified.context().close();
  });

  test("the instances' logs are JSON lines without the client secret, a token or an IdP user's e-mail", () => {
    for (const instance of [app, ssoOnly!]) {
      const lines = instance
        .log()
        .split("\n")
        .filter((line) => line.trim());
      const fromApp = lines.slice(lines.findIndex((line) => line.startsWith("{")));
      expect(fromApp.filter((line) => !line.startsWith("{"))).toEqual([]);
      expect(fromApp.filter((line) => line.includes(IDP.clientSecret))).toEqual([]);
      expect(fromApp.filter((line) => /eyJ[\w-]+\.eyJ[\w-]+\./.test(line))).toEqual([]);
      expect(
        fromApp.filter((line) => line.includes("@parceira.example") || line.includes("@outra.example")),
      ).toEqual([]);
    }
  });
});
