import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "@playwright/test";
import pg from "pg";
import { freePort } from "../bench/lib/processes";
import { userMessageFor } from "../lib/errors";
import { expect, test } from "./fixtures";
import { SignInPage } from "./pages/sign-in-page";
import { agentsCli, keepFirstPassword, operatorTool } from "./support/agents-cli";
import { cookieHeader } from "./support/hostile-requests";
import { matching, securityLines, type Line } from "./support/security-lines";
import { startAppInstance, type AppInstance } from "./support/app-instance";
import {
  IDP_USERS,
  startIdentityProvider,
  type IdpUser,
  type RunningIdentityProvider,
} from "./support/identity-provider";
import { expectRefused, newPage, oidcEnv, sessionOf, signInThroughIdp } from "./support/oidc";
import { signPortalToken } from "./support/portal";
import { portalEntry, type StandInPortal } from "./support/portal-keys";
import { apiSale, sandboxControl } from "./support/sandbox";

// One person, one account, whichever door: the partner's IdP (oidc-provider on 127.0.0.1) and two portals with keys
// of their own, on an instance of this spec's own (OIDC_ADOPT_PASSWORD_ACCOUNTS on). The portals' sign-ins go
// straight to POST /api/embed/session, as their frames send them (e2e/embed.spec.ts drives the frame itself).
test.describe.configure({ mode: "serial" });

const DOMAIN = "parceira.example";
const portal = (name: string): StandInPortal => ({
  issuer: `https://${name}.parceira.example`,
  alg: "ES256",
  signingKey: generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey,
  emailDomains: [DOMAIN],
});
/** Creates agents in the partner's domain; its sessions are agents'. */
const PORTAL_A = portal("crm-a");
/** The same, and its tokens may say supervisor. */
const PORTAL_B = portal("crm-b");

let idp: RunningIdentityProvider;
let app: AppInstance;
let configDir = "";
let cliEnv: Record<string, string> = {};

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const port = await freePort();
  idp = await startIdentityProvider([`http://localhost:${port}`]);
  configDir = mkdtempSync(join(tmpdir(), "partner-sales-identity-"));
  const portalsFile = join(configDir, "portals.json");
  writeFileSync(
    portalsFile,
    JSON.stringify([portalEntry(PORTAL_A), portalEntry(PORTAL_B, { allowSupervisors: true })]),
  );
  const env = {
    ...oidcEnv({ OIDC_ADOPT_PASSWORD_ACCOUNTS: "on" }),
    EMBED_ALLOWED_ORIGINS: "http://127.0.0.1:3299",
    EMBED_PORTALS_FILE: portalsFile,
  };
  app = await startAppInstance(port, env);
  cliEnv = { ...env, DATA_DIR: app.dataDir, AUTH_URL: app.url };
});

test.afterAll(async () => {
  await app?.stop();
  await idp?.stop();
  rmSync(configDir, { recursive: true, force: true });
});

/** A portal's backend signs a token for `claims`; its frame exchanges it: the answer, and the session cookie set. */
async function portalSignIn(
  signer: StandInPortal,
  claims: { sub: string; email: string; name?: string; role?: string },
) {
  const token = await signPortalToken(claims, { signer });
  const response = await fetch(`${app.url}/api/embed/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
  const cookie = response.headers
    .getSetCookie()
    .filter((each) => each.startsWith("authjs.session-token="))
    .map((each) => each.split(";")[0]!)
    .join("; ");
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, cookie, token };
}

/** Whose session a Cookie header opens, and with which role (null: none). */
async function sessionFor(cookie: string): Promise<{ id: string; role: string } | null> {
  if (!cookie) return null;
  const answer = (await (await fetch(`${app.url}/api/auth/session`, { headers: { cookie } })).json()) as {
    user?: { id: string; role: string };
  } | null;
  return answer?.user ?? null;
}

/** The accounts, as the operator lists them: e-mail → the line with its doors. */
async function accounts(): Promise<Map<string, string>> {
  const { stdout } = await agentsCli(["list"], cliEnv);
  const lines = stdout.split("\n\n")[0]!.split("\n").filter(Boolean);
  return new Map(lines.map((line) => [line.split("  ")[0]!, line]));
}

async function signedInThroughIdp(browser: Browser, user: IdpUser): Promise<Page> {
  const page = await newPage(browser, app.url);
  await signInThroughIdp(page, user);
  await expect(page.getByRole("heading", { level: 1, name: "Nova venda" })).toBeVisible();
  return page;
}

const refusedWith = (code: string) => ({ error: code, message: userMessageFor(code as never) });

test("a portal naming the e-mail of an account the IdP created is refused: no session, nothing created or linked", async ({
  browser,
}) => {
  const page = await signedInThroughIdp(browser, IDP_USERS.gabriela);
  const gabriela = (await sessionOf(page.request))!.user!;
  expect(gabriela.role).toBe("agent");
  await page.context().close();
  const before = await accounts();

  const byA = await portalSignIn(PORTAL_A, { sub: "crm-a-gabriela", email: IDP_USERS.gabriela.email });
  expect(byA.status).toBe(403);
  expect(byA.body).toEqual(refusedWith("token_account_conflict"));
  expect(byA.cookie).toBe("");
  // Not even asking for a supervisor through the portal that may: refused the same.
  const byB = await portalSignIn(PORTAL_B, {
    sub: "crm-b-gabriela",
    email: IDP_USERS.gabriela.email.toUpperCase(),
    role: "supervisor",
  });
  expect(byB.status).toBe(403);
  expect(byB.body).toEqual(refusedWith("token_account_conflict"));
  expect(byB.cookie).toBe("");

  const after = await accounts();
  expect(after).toEqual(before);
  expect(after.get(IDP_USERS.gabriela.email)).toMatch(
    new RegExp(`  oidc:\\S+ \\(sub ${IDP_USERS.gabriela.sub}\\)$`),
  );
});

test("the IdP meeting an account a portal created is refused, and the portal's next token is still an agent's", async ({
  browser,
}) => {
  const created = await portalSignIn(PORTAL_A, { sub: "crm-a-heitor", email: IDP_USERS.heitor.email });
  expect(created.status).toBe(200);
  const heitor = (await sessionFor(created.cookie))!;
  expect(heitor.role).toBe("agent");
  const before = await accounts();

  // Heitor is a supervisor at the IdP; the IdP does not get to write that on the portal's account, nor enter it.
  const page = await newPage(browser, app.url);
  await signInThroughIdp(page, IDP_USERS.heitor);
  await expectRefused(page, "oidc_account_conflict");
  expect(await sessionOf(page.request)).toBeNull();
  await page.context().close();
  expect(await accounts()).toEqual(before);

  // The portal's own subject, any e-mail in its domains: the same account, an agent's session, no supervisor's page.
  const again = await portalSignIn(PORTAL_A, {
    sub: "crm-a-heitor",
    email: `outro.${randomUUID().slice(0, 6)}@${DOMAIN}`,
  });
  expect(again.status).toBe(200);
  expect(await sessionFor(again.cookie)).toMatchObject({ id: heitor.id, role: "agent" });
  const dashboard = await fetch(`${app.url}/dashboard`, {
    headers: { cookie: again.cookie },
    redirect: "manual",
  });
  expect(dashboard.status).toBe(404);
});

test("a portal names only e-mails in its domains, and opens a supervisor's session only when allowed to", async () => {
  for (const email of [`ana@outra.example`, `ana@sub.${DOMAIN}`, `ana@${DOMAIN}.evil.example`]) {
    const refused = await portalSignIn(PORTAL_A, { sub: "crm-a-outsider", email });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(refusedWith("token_email_domain"));
    expect(refused.cookie).toBe("");
  }
  expect((await accounts()).has("ana@outra.example")).toBe(false);

  const askedAtA = await portalSignIn(PORTAL_A, {
    sub: "crm-a-lia",
    email: `lia@${DOMAIN}`,
    role: "supervisor",
  });
  expect((await sessionFor(askedAtA.cookie))?.role).toBe("agent");
  const askedAtB = await portalSignIn(PORTAL_B, {
    sub: "crm-b-rui",
    email: `rui@${DOMAIN}`,
    role: "supervisor",
  });
  expect((await sessionFor(askedAtB.cookie))?.role).toBe("supervisor");
  const dashboard = await fetch(`${app.url}/dashboard`, { headers: { cookie: askedAtB.cookie } });
  expect(dashboard.status).toBe(200);
});

test("opted in, the IdP adopts a password account; each door keeps its own role", async ({ browser }) => {
  const password = "vela-ponte-quartzo-82";
  const added = await agentsCli(
    [
      "add",
      "--email",
      IDP_USERS.ines.email,
      "--name",
      "Inês",
      "--role",
      "supervisor",
      "--password",
      password,
    ],
    cliEnv,
  );
  expect(added.status).toBe(0);
  await keepFirstPassword(IDP_USERS.ines.email, cliEnv);
  const throughIdp = await signedInThroughIdp(browser, IDP_USERS.ines);
  const adopted = (await sessionOf(throughIdp.request))!.user!;
  // The IdP's claim says agent: that session is an agent's, whatever the operator gave the password.
  expect(adopted.role).toBe("agent");
  await throughIdp.context().close();
  expect((await accounts()).get(IDP_USERS.ines.email)).toMatch(/  password, oidc:\S+ \(sub idp-ines\)$/);

  const withPassword = await newPage(browser, app.url);
  await new SignInPage(withPassword).goto();
  await new SignInPage(withPassword).signIn(IDP_USERS.ines.email, password);
  expect(await sessionOf(withPassword.request)).toMatchObject({
    user: { id: adopted.id, role: "supervisor" },
  });
  await withPassword.context().close();
});

test("an operator links a portal's agent to the IdP's person: both doors reach that account, until unlinked", async ({
  browser,
}) => {
  const throughIdp = await signedInThroughIdp(browser, IDP_USERS.joao);
  const joao = (await sessionOf(throughIdp.request))!.user!;
  await throughIdp.context().close();
  const claims = { sub: "crm-a-joao", email: IDP_USERS.joao.email };
  expect((await portalSignIn(PORTAL_A, claims)).body).toEqual(refusedWith("token_account_conflict"));

  const linked = await agentsCli(
    ["link", "--email", IDP_USERS.joao.email, "--portal", PORTAL_A.issuer, "--subject", "crm-a-joao"],
    cliEnv,
  );
  expect(linked.stdout).toContain(`Linked ${IDP_USERS.joao.email} to portal:${PORTAL_A.issuer} "crm-a-joao"`);
  const throughPortal = await portalSignIn(PORTAL_A, claims);
  expect(await sessionFor(throughPortal.cookie)).toMatchObject({ id: joao.id, role: "agent" });
  const again = await signedInThroughIdp(browser, IDP_USERS.joao);
  expect((await sessionOf(again.request))?.user?.id).toBe(joao.id);
  await again.context().close();

  await agentsCli(["unlink", "--email", IDP_USERS.joao.email, "--portal", PORTAL_A.issuer], cliEnv);
  // The portal's session ended with the link, and its next token meets an account it may not take.
  expect(await sessionFor(throughPortal.cookie)).toBeNull();
  expect((await portalSignIn(PORTAL_A, claims)).body).toEqual(refusedWith("token_account_conflict"));
});

// The security log: every event of ASVS V16.3.1–V16.3.3 as one JSON line, with the same fields.
const FIELDS = [
  "event",
  "category",
  "outcome",
  "door",
  "agentId",
  "address",
  "session",
  "emailHash",
  "reason",
];
function expectLine(lines: Line[], expected: Line): Line {
  const line = matching(lines, expected);
  expect(line, `${JSON.stringify(expected)} in ${JSON.stringify(lines)}`).toBeDefined();
  for (const field of FIELDS) expect(line, field).toHaveProperty(field);
  return line!;
}

/**
 * The app's security lines that `action` caused, one for each of `expected`. A line is written as its request is
 * answered, and one action may write several (signing out everywhere ends the other sessions, then this one): the
 * poll waits for every expected line, not for the first line to arrive.
 */
async function logged(action: () => Promise<unknown>, ...expected: Line[]): Promise<Line[]> {
  const before = securityLines(app.log()).length;
  const since = () => securityLines(app.log()).slice(before);
  await action();
  await expect
    .poll(() => expected.every((each) => matching(since(), each)), { message: JSON.stringify(expected) })
    .toBe(true);
  return expected.map((each) => expectLine(since(), each));
}

const LOOPBACK = /^(127\.0\.0\.1|::1)$/;

test("every security event is one log line naming the door, the account and the address, and nothing personal", async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const agent = { email: `e2e-${randomUUID().slice(0, 8)}@example.com`, password: "vela-ponte-quartzo-81" };
  const created = await agentsCli(
    ["add", "--email", agent.email, "--name", "Agente Log", "--password", agent.password],
    cliEnv,
  );
  await keepFirstPassword(agent.email, cliEnv);
  const agentId = securityLines(created.stderr).find((line) => line.event === "account.created")!
    .agentId as string;
  expectLine(securityLines(created.stderr), {
    event: "account.created",
    door: "cli",
    agentId,
    address: null,
  });
  const signInPage = async () => {
    const page = await newPage(browser, app.url);
    await new SignInPage(page).goto();
    return page;
  };

  // Sign-in: success, a wrong password, an e-mail nobody has (its keyed hash), a lockout.
  const page = await signInPage();
  const [signedIn] = await logged(() => new SignInPage(page).signIn(agent.email, agent.password), {
    event: "auth.sign_in",
    outcome: "success",
    door: "password",
    agentId,
  });
  expect(signedIn!.address).toMatch(LOOPBACK);
  expect(signedIn!.session).toMatch(/^[0-9a-f]{16}$/);
  const other = await signInPage();
  await logged(() => new SignInPage(other).signIn(agent.email, "senha-errada"), {
    event: "auth.sign_in",
    outcome: "failure",
    door: "password",
    agentId,
    reason: "invalid",
    emailHash: null,
  });
  const [unknown] = await logged(() => new SignInPage(other).signIn("ninguem@example.com", "senha-errada"), {
    event: "auth.sign_in",
    outcome: "failure",
    agentId: null,
    reason: "invalid",
  });
  expect(unknown!.emailHash).toMatch(/^[0-9a-f]{16}$/);
  const victim = { email: `e2e-${randomUUID().slice(0, 8)}@example.com`, password: "vela-ponte-quartzo-81" };
  await agentsCli(["add", "--email", victim.email, "--name", "Alvo", "--password", victim.password], cliEnv);
  await logged(
    async () => {
      for (let guess = 0; guess < 5; guess++)
        await new SignInPage(other).signIn(victim.email, `chute-${guess}`);
    },
    { event: "auth.lockout", outcome: "failure", door: "password", reason: "account" },
  );

  // Refused access: another agent's sale, a supervisor's page, a cross-site post, a forged cookie, no CSRF token.
  const sale = apiSale();
  const sold = await page.request.post("/api/sales", {
    data: sale,
    headers: { "Idempotency-Key": randomUUID(), Origin: app.url },
  });
  expect(sold.status()).toBe(201);
  const { submissionId } = (await sold.json()) as { submissionId: string };
  const otherAgent = await signedInThroughIdp(browser, IDP_USERS.karina);
  const karinaId = (await sessionOf(otherAgent.request))!.user!.id;
  await logged(() => otherAgent.goto(`/sales/${submissionId}`), {
    event: "access.refused",
    agentId: karinaId,
    reason: "other_agents_sale",
    submissionId,
  });
  await logged(() => otherAgent.goto("/dashboard"), {
    event: "access.refused",
    agentId: karinaId,
    reason: "supervisor_page",
    door: `oidc:${idp.issuer}`,
  });
  const cookie = cookieHeader(await page.context().cookies());
  // A supervisor's action, replayed by an agent: the settlement's own request, captured at a supervisor's desk.
  await sandboxControl("POST", "faults", { kind: "503" });
  const unsure = await page.request.post("/api/sales", {
    data: apiSale(),
    headers: { "Idempotency-Key": randomUUID(), Origin: app.url },
  });
  const { submissionId: unknownSale, status } = (await unsure.json()) as {
    submissionId: string;
    status: string;
  };
  expect(status).toBe("unknown");
  const supervisor = {
    email: `e2e-${randomUUID().slice(0, 8)}@example.com`,
    password: "vela-ponte-quartzo-81",
  };
  await agentsCli(
    [
      "add",
      "--email",
      supervisor.email,
      "--name",
      "Sup",
      "--role",
      "supervisor",
      "--password",
      supervisor.password,
    ],
    cliEnv,
  );
  await keepFirstPassword(supervisor.email, cliEnv);
  const desk = await signInPage();
  await new SignInPage(desk).signIn(supervisor.email, supervisor.password);
  await desk.goto(`/sales/${unknownSale}?settle=registered`);
  let settlement: { url: string; headers: Record<string, string>; body: Buffer } | undefined;
  await desk.route(`**/sales/${unknownSale}*`, async (route) => {
    const request = route.request();
    if (request.method() !== "POST") return route.continue();
    const headers = Object.fromEntries(
      Object.entries(await request.allHeaders()).filter(([name]) =>
        /^(next-|content-type$|origin$)/.test(name),
      ),
    );
    settlement = { url: request.url(), headers, body: request.postDataBuffer()! };
    await route.abort();
  });
  await desk.getByRole("button", { name: "Confirmar" }).click();
  await expect.poll(() => settlement).toBeDefined();
  await desk.context().close();
  await logged(
    () =>
      fetch(settlement!.url, {
        method: "POST",
        headers: { ...settlement!.headers, cookie },
        body: new Uint8Array(settlement!.body),
        redirect: "manual",
      }),
    {
      event: "access.refused",
      agentId,
      door: "password",
      reason: "supervisor_action",
      action: "settle",
      submissionId: unknownSale,
    },
  );
  // Nothing was settled: the agent's own page still reads it as to be confirmed.
  await page.goto(`/sales/${unknownSale}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Venda a confirmar");
  await logged(
    () =>
      fetch(`${app.url}/api/sales`, {
        method: "POST",
        headers: {
          cookie,
          origin: "https://evil.example",
          "content-type": "application/json",
          "idempotency-key": randomUUID(),
        },
        body: JSON.stringify(apiSale()),
      }),
    { event: "access.refused", reason: "cross_site", path: "/api/sales" },
  );
  await logged(
    () =>
      fetch(`${app.url}/sales`, {
        headers: { cookie: "authjs.session-token=eyJhbGciOiJkaXIi.forged" },
        redirect: "manual",
      }),
    { event: "access.refused", reason: "session_cookie_invalid", agentId: null },
  );
  await logged(
    () =>
      fetch(`${app.url}/api/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email: agent.email, password: agent.password }).toString(),
        redirect: "manual",
      }),
    { event: "access.refused", reason: "csrf" },
  );

  // A role the IdP changed, at the next sign-in through it.
  idp.setRoles(IDP_USERS.karina, ["supervisor-vendas"]);
  await logged(
    async () => {
      const again = await signedInThroughIdp(browser, IDP_USERS.karina);
      await again.context().close();
    },
    {
      event: "account.role_changed",
      agentId: karinaId,
      door: `oidc:${idp.issuer}`,
      from: "agent",
      to: "supervisor",
    },
  );
  await otherAgent.context().close();

  // Sessions ending: idle and 12 hours after sign-in (the clock moved in the database), sign-out, "everywhere".
  const database = new pg.Client({ host: app.dataDir, port: 5432, user: "postgres", database: "postgres" });
  await database.connect();
  try {
    const sessions = async () =>
      (
        await database.query<{ id: string }>(
          "select id from sessions where agent_id = $1 and ended_at is null",
          [agentId],
        )
      ).rows.map((row) => row.id);
    const [live] = await sessions();
    await database.query("update sessions set last_seen_at = now() - interval '2 hours' where id = $1", [
      live,
    ]);
    const [idle] = await logged(() => page.goto("/sales"), {
      event: "auth.session_ended",
      agentId,
      reason: "idle",
    });
    expect(idle!.session).toBe(signedIn!.session);
    await expect(page).toHaveURL(/\/sign-in/);

    await new SignInPage(page).signIn(agent.email, agent.password);
    const [longLived] = await sessions();
    await database.query("update sessions set created_at = now() - interval '13 hours' where id = $1", [
      longLived,
    ]);
    await logged(() => page.goto("/sales"), {
      event: "auth.session_ended",
      agentId,
      reason: "absolute",
    });
  } finally {
    await database.end();
  }
  await new SignInPage(page).signIn(agent.email, agent.password);
  const elsewhere = await newPage(browser, app.url);
  await new SignInPage(elsewhere).goto();
  await new SignInPage(elsewhere).signIn(agent.email, agent.password);
  await logged(
    () => elsewhere.getByRole("button", { name: "Sair de todos os dispositivos" }).click(),
    { event: "auth.session_ended", agentId, reason: "signed_out_elsewhere" },
    { event: "auth.sign_out", agentId, reason: "signed_out" },
  );
  // The first browser's cookie, replayed after that: refused, and said once.
  await logged(() => page.goto("/sales"), {
    event: "access.refused",
    agentId,
    reason: "session_ended",
    endReason: "signed_out_elsewhere",
  });

  // The operator's: sessions ended, an account disabled, an identity unlinked (the CLI's own security lines).
  await new SignInPage(page).signIn(agent.email, agent.password);
  const ended = await agentsCli(["end-sessions", "--email", agent.email], cliEnv);
  expectLine(securityLines(ended.stderr), {
    event: "auth.session_ended",
    agentId,
    reason: "ended_by_operator",
    door: "password",
  });
  await new SignInPage(page).goto();
  await new SignInPage(page).signIn(agent.email, agent.password);
  const disabled = await agentsCli(["disable", "--email", agent.email], cliEnv);
  expectLine(securityLines(disabled.stderr), { event: "auth.session_ended", agentId, reason: "disabled" });
  const unlinked = await agentsCli(["unlink", "--email", IDP_USERS.karina.email, "--idp"], cliEnv);
  expectLine(securityLines(unlinked.stderr), {
    event: "account.identity_unlinked",
    agentId: karinaId,
    door: "cli",
  });
  await page.context().close();
  await other.context().close();
  await elsewhere.context().close();

  // The whole log: JSON lines with no e-mail, customer data or token, and the trail holds.
  const log = app.log();
  expect(log).not.toMatch(/@(example\.com|parceira\.example)/);
  expect(log).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\./);
  for (const value of [sale.customerDocument, sale.customerPhone, sale.customerName])
    expect(log).not.toContain(value);
  const verified = await operatorTool("audit", ["verify", "--log", join(app.dataDir, "app.log")], cliEnv);
  expect(verified.stdout).toMatch(/^Audit trail intact: \d+ rows/);
});

test.afterAll(() => sandboxControl("POST", "reset"));
