import { randomUUID } from "node:crypto";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { freePort } from "../bench/lib/processes";
import { totpCode, totpStep } from "../lib/auth/second-factor/totp";
import { expect, test } from "./fixtures";
import { SignInPage } from "./pages/sign-in-page";
import { expectNoAxeViolations } from "./support/accessibility";
import { agentsCli, keepFirstPassword } from "./support/agents-cli";
import { startAppInstance, type AppInstance } from "./support/app-instance";
import { matching, securityLines, type Line } from "./support/security-lines";

// Password sign-in with a second factor, on instances of this spec's own: one where every password account needs a
// factor (PASSWORD_SECOND_FACTOR=required, as live mode defaults to), one where only supervisors do. Codes are
// computed here from the secret the enrolment shows, as an authenticator app would; the security key is Chromium's
// virtual authenticator (DevTools Protocol).
test.describe.configure({ mode: "serial" });
// The floor's PCs: a 1366×768 screen minus the browser's own bars.
test.use({ viewport: { width: 1366, height: 657 } });

let required: AppInstance;
let supervisors: AppInstance;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  [required, supervisors] = await Promise.all([
    startAppInstance(await freePort(), { PASSWORD_SECOND_FACTOR: "required" }),
    startAppInstance(await freePort(), { PASSWORD_SECOND_FACTOR: "supervisors" }),
  ]);
});

test.afterAll(async () => {
  await Promise.all([required?.stop(), supervisors?.stop()]);
});

interface Account {
  email: string;
  password: string;
}

/** An account the operator adds with a password of their choosing (to be changed at its first sign-in). */
async function addAccount(app: AppInstance, role: "agent" | "supervisor" = "agent"): Promise<Account> {
  const account = { email: `e2e-${randomUUID().slice(0, 8)}@example.com`, password: "Balcao-Azul-7731" };
  const added = await agentsCli(
    [
      "add",
      "--email",
      account.email,
      "--name",
      "Rita Moreira",
      "--role",
      role,
      "--password",
      account.password,
    ],
    { DATA_DIR: app.dataDir },
  );
  expect(added.status, added.stderr).toBe(0);
  expect(added.stdout).toContain("must change this password at first sign-in");
  return account;
}

async function desk(browser: Browser, app: AppInstance): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: app.url, viewport: { width: 1366, height: 657 } });
  return { context, page: await context.newPage() };
}

/** E-mail and password, by keyboard: the steps page follows. */
async function typePassword(page: Page, account: Account) {
  await page.goto("/sign-in");
  await page.getByLabel("E-mail").fill(account.email);
  await page.getByLabel("Senha").fill(account.password);
  await page.keyboard.press("Enter");
}

async function expectLogged(app: AppInstance, expected: Line) {
  await expect.poll(() => matching(securityLines(app.log()), expected) !== undefined).toBe(true);
}

const SIGNED_IN = (page: Page) =>
  expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sair", exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in/);
}

/**
 * A code of `secret` for the earliest time step after `lastStep` that the server's window (±1 step) accepts now: the
 * current step when it is free, so the code stays good for at least 30 seconds more (the replay check below reuses it),
 * else the next one.
 */
/**
 * Types a code and sends it with Enter, waiting for the server action's answer and for React to have reset the form
 * (so the next code typed is never wiped by the reset of the one before).
 */
async function sendCode(page: Page, label: string, code: string, { refused = false } = {}) {
  const field = page.getByLabel(label);
  await field.fill(code);
  await Promise.all([
    page.waitForResponse((response) => response.request().method() === "POST"),
    field.press("Enter"),
  ]);
  if (refused) await expect(field).toHaveValue("");
}

/** Codes the server's window (±1 step, and the next step for a slow test) cannot accept now. */
function wrongCodes(secret: string): string[] {
  const valid = [-30_000, 0, 30_000, 60_000].map((skew) => totpCode(secret, Date.now() + skew));
  return ["000000", "111111", "222222", "333333", "444444", "555555", "666666", "777777", "888888"].filter(
    (code) => !valid.includes(code),
  );
}

function nextCode(secret: string, lastStep: number): { code: string; step: number } {
  const now = Date.now();
  const current = totpStep(secret, totpCode(secret, now), now)!;
  const step = Math.max(lastStep + 1, current);
  expect(
    step,
    "no free step in the window: two codes were used within one step of each other",
  ).toBeLessThanOrEqual(current + 1);
  return { code: totpCode(secret, step * 30_000), step };
}

test("a first sign-in changes the operator's password, enrols an authenticator app and keeps ten recovery codes", async ({
  browser,
}) => {
  const account = await addAccount(required);
  const { context, page } = await desk(browser, required);

  await typePassword(page, account);
  await expect(page).toHaveURL(/\/sign-in\/steps$/);
  await expect(page.getByRole("heading", { level: 1, name: "Crie a sua senha" })).toBeVisible();
  await expectNoAxeViolations(page);

  // Refused, and why: a common password, one with the e-mail, two that differ.
  const choose = async (password: string, confirmation = password) => {
    await page.getByLabel("Nova senha", { exact: true }).fill(password);
    await page.getByLabel("Repita a nova senha").fill(confirmation);
    await page.getByLabel("Repita a nova senha").press("Enter");
  };
  await choose("password123");
  await expect(page.getByText("Essa senha está entre as mais usadas ou vazadas")).toBeVisible();
  await choose(`${account.email.split("@")[0]}-balcao`);
  await expect(page.getByText("A senha não pode conter o seu e-mail.")).toBeVisible();
  await choose("cavalo correto bateria grampo", "cavalo correto bateria");
  await expect(page.getByText("As duas senhas não são iguais.")).toBeVisible();
  account.password = "cavalo correto bateria grampo";
  await choose(account.password);

  // Then a second factor: the authenticator app, its secret shown by the app itself.
  await expect(page.getByRole("heading", { level: 1, name: "Cadastre um segundo fator" })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole("button", { name: "Usar aplicativo autenticador" }).click();
  await expect(page.getByRole("img", { name: "Código QR para o aplicativo autenticador" })).toBeVisible();
  const secret = (await page.getByTestId("totp-secret").textContent())!.replace(/\s/g, "");
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await expectNoAxeViolations(page);
  await sendCode(page, "Código do aplicativo", wrongCodes(secret)[0]!, { refused: true });
  await expect(page.getByText("Código incorreto.")).toBeVisible();
  const enrolled = nextCode(secret, 0);
  await sendCode(page, "Código do aplicativo", enrolled.code);
  const codes = page.locator(".recovery-codes li");
  await expect(codes).toHaveCount(10);
  const recovery = await codes.allTextContents();
  expect(new Set(recovery).size).toBe(10);
  await expectNoAxeViolations(page);
  await page.getByRole("button", { name: "Continuar" }).click();
  await SIGNED_IN(page);
  await expectLogged(required, { event: "account.second_factor_added", factor: "totp", outcome: "success" });
  await expectLogged(required, { event: "account.password_changed", via: "sign_in" });

  // The old password no longer signs in.
  await signOut(page);
  await new SignInPage(page).signIn(account.email, "Balcao-Azul-7731");
  await expect(new SignInPage(page).alert()).toContainText("E-mail ou senha incorretos.");

  // The new one asks for the code: a wrong one, then the next code.
  await typePassword(page, account);
  await expect(page.getByRole("heading", { level: 1, name: "Verificação em duas etapas" })).toBeVisible();
  await expectNoAxeViolations(page);
  await sendCode(page, "Código do aplicativo", wrongCodes(secret)[0]!, { refused: true });
  await expect(page.getByText("Código incorreto.")).toBeVisible();
  const next = nextCode(secret, enrolled.step);
  await sendCode(page, "Código do aplicativo", next.code);
  await SIGNED_IN(page);
  await expectLogged(required, { event: "auth.second_factor", outcome: "success", factor: "totp" });

  // The same code again, at once (it is good for 30 seconds more, nextCode's choice): refused as used.
  await signOut(page);
  await typePassword(page, account);
  await sendCode(page, "Código do aplicativo", next.code, { refused: true });
  await expect(page.getByText("Esse código já foi usado.")).toBeVisible();
  await expectLogged(required, {
    event: "auth.second_factor",
    outcome: "failure",
    reason: "replayed",
    factor: "totp",
  });
  await page.getByRole("button", { name: "Cancelar e voltar para a entrada" }).click();
  await new SignInPage(page).expectShown();

  // A recovery code signs in once; the same one is refused the second time.
  for (const attempt of ["first", "again"] as const) {
    if (attempt === "again") await signOut(page);
    await typePassword(page, account);
    await page.getByRole("link", { name: /código de recuperação/ }).click();
    await sendCode(page, "Código de recuperação", recovery[0]!.toLowerCase(), {
      refused: attempt === "again",
    });
    if (attempt === "first") {
      await SIGNED_IN(page);
      await expectLogged(required, {
        event: "auth.second_factor",
        outcome: "success",
        factor: "recovery_code",
      });
    } else {
      await expect(page.getByText("Código de recuperação incorreto ou já usado.")).toBeVisible();
      await sendCode(page, "Código de recuperação", recovery[1]!);
      await SIGNED_IN(page);
    }
  }
  await page.goto("/account");
  await expect(page.getByText("Restam 8 códigos sem uso.")).toBeVisible();
  await expectNoAxeViolations(page);
  await context.close();
});

test("second-factor failures count toward the password's lockout", async ({ browser }) => {
  const account = await addAccount(required);
  await keepFirstPassword(account.email, { DATA_DIR: required.dataDir });
  const { context, page } = await desk(browser, required);
  await typePassword(page, account);
  await page.getByRole("button", { name: "Usar aplicativo autenticador" }).click();
  const secret = (await page.getByTestId("totp-secret").textContent())!.replace(/\s/g, "");
  await sendCode(page, "Código do aplicativo", nextCode(secret, 0).code);
  await page.getByRole("button", { name: "Continuar" }).click();
  await SIGNED_IN(page);
  await signOut(page);

  await typePassword(page, account);
  const guesses = wrongCodes(secret);
  for (const guess of guesses.slice(0, 4)) {
    await sendCode(page, "Código do aplicativo", guess, { refused: true });
    await expect(page.getByText("Código incorreto.")).toBeVisible();
  }
  await sendCode(page, "Código do aplicativo", guesses[4]!);
  await expect(page.getByText("Muitas tentativas sem sucesso.")).toBeVisible();
  await expectLogged(required, { event: "auth.lockout", reason: "account", factor: "totp" });
  // The right password is locked out too, and saying the password again does not reset the count.
  await page.getByRole("button", { name: "Cancelar e voltar para a entrada" }).click();
  await new SignInPage(page).signIn(account.email, account.password);
  await expect(new SignInPage(page).alert()).toContainText("Muitas tentativas sem sucesso.");
  await context.close();
});

test("a security key (Chromium's virtual authenticator) enrols and signs in; the operator's reset ends the sessions and asks for a new one", async ({
  browser,
}) => {
  const account = await addAccount(required);
  await keepFirstPassword(account.email, { DATA_DIR: required.dataDir });
  const { context, page } = await desk(browser, required);
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  await typePassword(page, account);
  await expect(page.getByRole("heading", { level: 1, name: "Cadastre um segundo fator" })).toBeVisible();
  await page.getByLabel("Nome da chave").fill("Windows Hello da mesa 12");
  await page.getByRole("button", { name: "Cadastrar chave de segurança" }).click();
  await expect(page.locator(".recovery-codes li")).toHaveCount(10);
  await page.getByRole("button", { name: "Continuar" }).click();
  await SIGNED_IN(page);
  await expectLogged(required, { event: "account.second_factor_added", factor: "webauthn" });

  await signOut(page);
  await typePassword(page, account);
  await page.getByRole("button", { name: "Usar chave de segurança" }).click();
  await SIGNED_IN(page);
  await expectLogged(required, { event: "auth.second_factor", outcome: "success", factor: "webauthn" });
  await page.goto("/account");
  await expect(page.getByText("Windows Hello da mesa 12", { exact: true })).toBeVisible();
  await expectNoAxeViolations(page);
  // The policy asks for a factor: the only one is not removed.
  await page.getByRole("button", { name: "Remover Windows Hello da mesa 12" }).click();
  await page.getByLabel("Confirme com a sua senha atual").fill(account.password);
  await page.getByRole("button", { name: "Remover", exact: true }).click();
  await expect(page.getByText("Cadastre outro fator antes de remover este")).toBeVisible();

  // The key is lost: the operator resets the account's factors. Its session ends at once.
  const reset = await agentsCli(["reset-second-factor", "--email", account.email], {
    DATA_DIR: required.dataDir,
  });
  expect(reset.status, reset.stderr).toBe(0);
  expect(reset.stdout).toContain("1 session ended");
  expect(reset.stderr).toContain('"account.second_factor_reset"');
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in/);
  await typePassword(page, account);
  await expect(page.getByRole("heading", { level: 1, name: "Cadastre um segundo fator" })).toBeVisible();
  await context.close();
});

test("under the supervisors policy a supervisor is sent to enrolment and an agent is not; a password change ends the agent's other sessions", async ({
  browser,
}) => {
  const supervisor = await addAccount(supervisors, "supervisor");
  await keepFirstPassword(supervisor.email, { DATA_DIR: supervisors.dataDir });
  const agent = await addAccount(supervisors, "agent");
  await keepFirstPassword(agent.email, { DATA_DIR: supervisors.dataDir });

  const boss = await desk(browser, supervisors);
  await typePassword(boss.page, supervisor);
  await expect(boss.page.getByRole("heading", { level: 1, name: "Cadastre um segundo fator" })).toBeVisible();
  await boss.context.close();

  const [here, there] = [await desk(browser, supervisors), await desk(browser, supervisors)];
  for (const { page } of [here, there]) {
    await new SignInPage(page).goto();
    await new SignInPage(page).signIn(agent.email, agent.password);
    await SIGNED_IN(page);
  }
  await here.page.getByRole("link", { name: "Minha conta" }).click();
  await expect(here.page.getByRole("heading", { level: 1, name: "Minha conta" })).toBeVisible();
  await expectNoAxeViolations(here.page);
  const form = here.page.getByRole("region", { name: "Alterar senha" });
  const change = async (current: string, password: string) => {
    await form.getByLabel("Senha atual").fill(current);
    await form.getByLabel("Nova senha", { exact: true }).fill(password);
    await form.getByLabel("Repita a nova senha").fill(password);
    await form.getByRole("button", { name: "Alterar senha" }).click();
  };
  await change(agent.password, "qwertyuiop");
  await expect(here.page.getByText("Essa senha está entre as mais usadas ou vazadas")).toBeVisible();
  await change(agent.password, `Senha ${agent.email}`);
  await expect(here.page.getByText("A senha não pode conter o seu e-mail.")).toBeVisible();
  await change("not-the-password", "um ônibus amarelo na chuva");
  await expect(here.page.getByText("Senha atual incorreta.")).toBeVisible();
  await change(agent.password, "um ônibus amarelo na chuva");
  await expect(here.page.getByText("Senha alterada. A sua outra sessão foi encerrada.")).toBeVisible();

  // This desk goes on; the other one is signed out.
  await here.page.goto("/");
  await SIGNED_IN(here.page);
  await there.page.reload();
  await expect(there.page).toHaveURL(/\/sign-in/);
  await new SignInPage(there.page).signIn(agent.email, "um ônibus amarelo na chuva");
  await SIGNED_IN(there.page);
  await expectLogged(supervisors, {
    event: "account.password_changed",
    via: "account_page",
    sessionsEnded: 1,
  });
  await here.context.close();
  await there.context.close();
});
