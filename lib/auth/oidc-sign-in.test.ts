import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OidcConfig } from "@/lib/config/oidc";
import type { DatabaseHandle } from "@/lib/db/connection";
import { findAgentByEmail, insertAgent, setAgentDisabled } from "@/lib/db/queries/agents";
import { createAgentWithIdentity, findIdentity, inviteIdentity } from "@/lib/db/queries/identities";
import { testDatabases } from "@/test/databases";
import { oidcConfig } from "@/test/oidc-config";
import { signInWithOidc } from "./oidc-sign-in";

const ISSUER = "https://login.parceira.example/realms/atendimento";
const config = oidcConfig({
  issuer: ISSUER,
  roleClaim: { text: "realm_access.roles", steps: ["realm_access", "roles"] },
  supervisorValues: ["supervisor"],
});

function person(overrides: Record<string, unknown> = {}) {
  const id = randomUUID().slice(0, 8);
  return {
    iss: ISSUER,
    sub: `user-${id}`,
    email: `Ana.${id}@Parceira.example`,
    email_verified: true,
    name: "Ana Lima",
    ...overrides,
  };
}

describe.each(testDatabases)("OIDC sign-in on $name", ({ open }) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  const signIn = (claims: Record<string, unknown>, overrides: Partial<OidcConfig> = {}) =>
    signInWithOidc(handle.db, claims, { ...config, ...overrides });

  it("creates the agent on the first sign-in (no password) and finds the same one by (iss, sub) after", async () => {
    const claims = person();
    const first = await signIn(claims);
    expect(first).toMatchObject({ ok: true, outcome: "created" });
    if (!first.ok) return;
    expect(first.agent).toMatchObject({ email: claims.email.toLowerCase(), name: "Ana Lima", role: "agent" });
    expect(first.agent.passwordHash).toBeNull();

    // Another e-mail and name at the IdP: still the same agent, renamed; the e-mail is not what matches.
    const second = await signIn({ ...claims, email: "outra@parceira.example", name: "Ana Lima Souza" });
    expect(second).toMatchObject({ ok: true, outcome: "known", agent: { id: first.agent.id } });
    if (second.ok) expect(second.agent.name).toBe("Ana Lima Souza");
  });

  it("re-reads the role at every sign-in, for this door's session only: promoted, then demoted", async () => {
    const claims = person();
    const asSupervisor = await signIn({ ...claims, realm_access: { roles: ["offline", "supervisor"] } });
    // The account's own role (the password's, the operator's) is not the IdP's to write.
    expect(asSupervisor).toMatchObject({ ok: true, role: "supervisor", agent: { role: "agent" } });
    const asAgent = await signIn({ ...claims, realm_access: { roles: ["offline"] } });
    expect(asAgent).toMatchObject({ ok: true, role: "agent", previousRole: "supervisor" });
  });

  it("keeps a disabled agent out whatever the IdP says", async () => {
    const claims = person();
    await signIn(claims);
    await setAgentDisabled(handle.db, claims.email, true);
    expect(await signIn({ ...claims, realm_access: { roles: ["supervisor"] } })).toMatchObject({
      ok: false,
      refusal: "oidc_account_disabled",
    });
  });

  const identityOf = (claims: { sub: string }) =>
    findIdentity(handle.db, { kind: "oidc", issuer: ISSUER, subject: claims.sub });
  const operator = { actor: "cli:test", door: "cli" };

  it("never links an account because its e-mail matches: a password account, a portal's, an operator's", async () => {
    const password = person();
    await insertAgent(handle.db, {
      email: password.email,
      name: "Ana",
      role: "supervisor",
      passwordHash: "x",
    });
    const portal = person();
    await createAgentWithIdentity(handle.db, {
      key: { kind: "portal", issuer: "https://portal.example", subject: "p-1" },
      email: portal.email.toLowerCase(),
      name: "Bia",
      role: "agent",
    });
    const bare = person();
    const added = await insertAgent(handle.db, {
      email: bare.email,
      name: "Caio",
      role: "agent",
      passwordHash: null,
    });
    for (const claims of [password, portal, bare]) {
      expect(await signIn(claims)).toMatchObject({ ok: false, refusal: "oidc_account_conflict" });
      expect(await signIn(claims, { autoCreate: false })).toMatchObject({ refusal: "oidc_account_conflict" });
      expect(await identityOf(claims)).toBeUndefined();
    }
    // Reported with the account it met, for the security log.
    expect(await signIn(bare)).toEqual({ ok: false, refusal: "oidc_account_conflict", agentId: added.id });
  });

  it("takes an operator's invitation to the account with that e-mail, once, verified only, before it expires", async () => {
    const claims = person();
    const added = await insertAgent(handle.db, {
      email: claims.email,
      name: "Elisa",
      role: "agent",
      passwordHash: null,
    });
    const until = new Date(Date.now() + 60_000);
    await inviteIdentity(handle.db, { agentId: added.id, issuer: ISSUER, until, actor: operator });
    const off = { autoCreate: false };
    expect(await signIn({ ...claims, email_verified: false }, off)).toMatchObject({
      refusal: "oidc_email_unverified",
    });
    // An IdP that does not say (no claim) is not taken as verified either.
    const { email_verified: _, ...unsaid } = claims;
    expect(await signIn(unsaid, off)).toMatchObject({ refusal: "oidc_email_unverified" });
    // Another IdP's identity does not take this IdP's invitation.
    expect(await signIn({ ...claims, iss: "https://other-idp.example" }, off)).toMatchObject({ ok: false });
    expect(await identityOf(claims)).toBeUndefined();

    expect(await signIn(claims, off)).toMatchObject({
      ok: true,
      outcome: "invited",
      agent: { id: added.id },
    });
    expect(await signIn(claims, off)).toMatchObject({ ok: true, outcome: "known", agent: { id: added.id } });
    // Taken: a second IdP account with the same e-mail finds no invitation.
    expect(await signIn({ ...claims, sub: `${claims.sub}-2` }, off)).toMatchObject({
      refusal: "oidc_account_conflict",
    });

    const late = person();
    const lateAgent = await insertAgent(handle.db, {
      email: late.email,
      name: "Tardia",
      role: "agent",
      passwordHash: null,
    });
    await inviteIdentity(handle.db, {
      agentId: lateAgent.id,
      issuer: ISSUER,
      until: new Date(Date.now() - 1),
      actor: operator,
    });
    expect(await signIn(late, off)).toMatchObject({ refusal: "oidc_account_conflict" });
  });

  describe("with OIDC_ADOPT_PASSWORD_ACCOUNTS", () => {
    const adopting = { adoptPasswordAccounts: true, allowedEmailDomains: ["parceira.example"] };

    it("takes over a password account with no other identity, keeping its password and its own role", async () => {
      const claims = person();
      const account = await insertAgent(handle.db, {
        email: claims.email,
        name: "Ana",
        role: "supervisor",
        passwordHash: "x",
      });
      const adopted = await signIn(claims, adopting);
      expect(adopted).toMatchObject({
        ok: true,
        outcome: "adopted",
        role: "agent",
        agent: { id: account.id },
      });
      expect(await findAgentByEmail(handle.db, claims.email)).toMatchObject({
        role: "supervisor",
        passwordHash: "x",
      });
      expect(await signIn(claims, adopting)).toMatchObject({ ok: true, outcome: "known" });
    });

    it("never takes an account without a password, one with another identity, or a disabled one", async () => {
      const bare = person();
      await insertAgent(handle.db, {
        email: bare.email,
        name: "Sem senha",
        role: "agent",
        passwordHash: null,
      });
      const portal = person();
      const viaPortal = await insertAgent(handle.db, {
        email: portal.email,
        name: "Portal",
        role: "agent",
        passwordHash: "x",
      });
      await inviteIdentity(handle.db, {
        agentId: viaPortal.id,
        issuer: "https://other-idp.example",
        until: new Date(Date.now() + 60_000),
        actor: operator,
      });
      const disabled = person();
      await insertAgent(handle.db, { email: disabled.email, name: "Off", role: "agent", passwordHash: "x" });
      await setAgentDisabled(handle.db, disabled.email, true);
      for (const claims of [bare, portal]) {
        expect(await signIn(claims, adopting)).toMatchObject({ ok: false, refusal: "oidc_account_conflict" });
      }
      expect(await signIn(disabled, adopting)).toMatchObject({ ok: false, refusal: "oidc_account_disabled" });
    });
  });

  it("with auto-create off, refuses someone no operator added", async () => {
    expect(await signIn(person(), { autoCreate: false })).toEqual({
      ok: false,
      refusal: "oidc_not_registered",
    });
  });

  it("never links a second IdP account to an agent that has one at this issuer", async () => {
    const claims = person();
    await signIn(claims);
    expect(await signIn({ ...claims, sub: `${claims.sub}-recreated` })).toMatchObject({
      ok: false,
      refusal: "oidc_account_conflict",
    });
  });

  it("checks the allowed domains at every sign-in, on a present and not unverified e-mail", async () => {
    const domains = { allowedEmailDomains: ["parceira.example"] };
    const claims = person();
    expect(await signIn(claims, domains)).toMatchObject({ ok: true });
    expect(await signIn({ ...claims, email: "ana@parceira.example.evil.example" }, domains)).toEqual({
      ok: false,
      refusal: "oidc_domain_refused",
    });
    expect(await signIn(person({ email: "bia@sub.parceira.example" }), domains)).toEqual({
      ok: false,
      refusal: "oidc_domain_refused",
    });
    expect(await signIn(person({ email_verified: false }), domains)).toEqual({
      ok: false,
      refusal: "oidc_email_unverified",
    });
    expect(await signIn(person({ email: undefined }), domains)).toEqual({
      ok: false,
      refusal: "oidc_email_missing",
    });
    // An IdP that does not say is not taken at its word on the domain either.
    const { email_verified: _, ...unsaid } = person({ email: "caio@parceira.example" });
    expect(await signIn(unsaid, domains)).toEqual({ ok: false, refusal: "oidc_email_unverified" });
  });

  it("creates an agent on a verified e-mail only: an unverified one is nobody's to take", async () => {
    const claims = person({ email: "dora@parceira.example" });
    expect(await signIn({ ...claims, email_verified: false })).toEqual({
      ok: false,
      refusal: "oidc_email_unverified",
    });
    const { email_verified: _, ...unsaid } = claims;
    expect(await signIn(unsaid)).toEqual({ ok: false, refusal: "oidc_email_unverified" });
    expect(await findAgentByEmail(handle.db, claims.email)).toBeUndefined();
    expect(await signIn(claims)).toMatchObject({ ok: true, outcome: "created" });
  });

  it("takes an e-mail the IdP does not vouch for only from an issuer the operator trusts", async () => {
    const upn = { emailClaim: { text: "upn", steps: ["upn"] } };
    const domains = { allowedEmailDomains: ["parceira.example"] };
    const { email: address, email_verified: _, ...rest } = person({ email: "edu@parceira.example" });
    const claims = { ...rest, upn: address };
    expect(await signIn(claims, upn)).toEqual({ ok: false, refusal: "oidc_email_unverified" });
    expect(await signIn(claims, { ...upn, ...domains })).toEqual({
      ok: false,
      refusal: "oidc_email_unverified",
    });
    expect(await signIn(claims, { ...upn, ...domains, trustUnverifiedEmails: true })).toMatchObject({
      ok: true,
      outcome: "created",
      agent: { email: "edu@parceira.example" },
    });
    // Trusted, an explicit "false" still stands.
    const doubted = person({ email: "fabi@parceira.example", email_verified: "false" });
    expect(await signIn(doubted, { trustUnverifiedEmails: true })).toEqual({
      ok: false,
      refusal: "oidc_email_unverified",
    });
    expect(await signIn({ ...doubted, email_verified: "true" })).toMatchObject({
      ok: true,
      outcome: "created",
    });
  });

  it("refuses a token that names nobody storable", async () => {
    expect(await signIn(person({ sub: "" }))).toEqual({ ok: false, refusal: "oidc_failed" });
    expect(await signIn(person({ sub: "a\u0000b" }))).toEqual({ ok: false, refusal: "oidc_failed" });
    expect(await signIn(person({ sub: "x".repeat(300) }))).toEqual({ ok: false, refusal: "oidc_failed" });
    expect(await signIn(person({ email: "not an e-mail" }))).toEqual({
      ok: false,
      refusal: "oidc_email_missing",
    });
  });

  it("two first sign-ins of one person at once make one agent", async () => {
    const claims = person();
    const [a, b] = await Promise.all([signIn(claims), signIn(claims)]);
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok) expect(a.agent.id).toBe(b.agent.id);
  });
});
