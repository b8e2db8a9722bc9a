import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OidcConfig } from "@/lib/config/oidc";
import type { DatabaseHandle } from "@/lib/db/connection";
import { findAgentByEmail, insertAgent, setAgentDisabled } from "@/lib/db/queries/agents";
import { findAgentByOidcIdentity } from "@/lib/db/queries/oidc-identities";
import { testDatabases } from "@/test/databases";
import { signInWithOidc } from "./oidc-sign-in";

const ISSUER = "https://login.parceira.example/realms/atendimento";
const config: OidcConfig = {
  issuer: ISSUER,
  clientId: "partner-sales",
  clientSecret: "secret",
  name: "Keycloak",
  autoCreate: true,
  allowedEmailDomains: [],
  roleClaim: "realm_access.roles",
  supervisorValues: ["supervisor"],
};

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

  it("re-reads the role at every sign-in: promoted, then demoted", async () => {
    const claims = person();
    const asSupervisor = await signIn({ ...claims, realm_access: { roles: ["offline", "supervisor"] } });
    expect(asSupervisor).toMatchObject({ ok: true, agent: { role: "supervisor" } });
    const asAgent = await signIn({ ...claims, realm_access: { roles: ["offline"] } });
    expect(asAgent).toMatchObject({ ok: true, agent: { role: "agent" } });
  });

  it("keeps a disabled agent out whatever the IdP says", async () => {
    const claims = person();
    await signIn(claims);
    await setAgentDisabled(handle.db, claims.email, true);
    expect(await signIn({ ...claims, realm_access: { roles: ["supervisor"] } })).toEqual({
      ok: false,
      refusal: "oidc_account_disabled",
    });
  });

  it("links an agent an operator added, by a verified e-mail only", async () => {
    const claims = person();
    const added = await insertAgent(handle.db, {
      email: claims.email,
      name: "Ana (operador)",
      role: "agent",
      passwordHash: "x",
    });
    const off = { autoCreate: false };
    expect(await signIn({ ...claims, email_verified: false }, off)).toEqual({
      ok: false,
      refusal: "oidc_email_unverified",
    });
    // An IdP that does not say (no claim) is not taken as verified either.
    const { email_verified: _, ...unsaid } = claims;
    expect(await signIn(unsaid, off)).toEqual({ ok: false, refusal: "oidc_email_unverified" });
    expect(await findAgentByOidcIdentity(handle.db, { issuer: ISSUER, subject: claims.sub })).toBeUndefined();

    expect(await signIn(claims, off)).toMatchObject({ ok: true, outcome: "linked", agent: { id: added.id } });
    expect(await signIn(claims, off)).toMatchObject({ ok: true, outcome: "known", agent: { id: added.id } });
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
    expect(await signIn({ ...claims, sub: `${claims.sub}-recreated` })).toEqual({
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
