import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import { findAgentByEmail, insertAgent, setAgentDisabled } from "@/lib/db/queries/agents";
import { testDatabases } from "@/test/databases";
import { signInWithEmbedToken } from "./embed-token";

const SECRET = "portal-shared-secret-with-enough-length-0001";
const NOW = new Date("2026-11-22T12:00:00Z");
const nowSeconds = Math.floor(NOW.getTime() / 1000);

function token(
  claims: Record<string, unknown> = {},
  { iat = nowSeconds, lifetime = 120, secret = SECRET } = {},
) {
  return new SignJWT({ email: "ana.portal@example.com", name: "Ana Portal", ...claims })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(typeof claims.sub === "string" ? claims.sub : "partner-42")
    .setIssuedAt(iat)
    .setExpirationTime(iat + lifetime)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(secret));
}

describe.each(testDatabases)("embed sign-in tokens on $name", ({ open }) => {
  let handle: DatabaseHandle;
  const signIn = async (jwt: string, now = NOW) => signInWithEmbedToken(handle.db, jwt, SECRET, now);

  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  it("creates the agent on first use, finds them by the partner's id after, and passes the form's prefill", async () => {
    const first = await signIn(
      await token({ prefill: { customerName: "Cliente", planId: "x", other: "dropped", externalId: 7 } }),
    );
    expect(first).toMatchObject({
      ok: true,
      agent: { email: "ana.portal@example.com", role: "agent", externalSubject: "partner-42" },
    });
    expect(first.ok && first.prefill).toEqual({ customerName: "Cliente", planId: "x" });
    const again = await signIn(await token({ email: "new.address@example.com" }));
    expect(again.ok && again.agent.id).toBe(first.ok && first.agent.id);
  });

  it("links an existing agent account without a password by e-mail the first time", async () => {
    const existing = await insertAgent(handle.db, {
      email: "bia@example.com",
      name: "Bia",
      role: "agent",
      passwordHash: null,
    });
    const result = await signIn(await token({ sub: "partner-bia", email: "BIA@example.com", name: "Bia" }));
    expect(result.ok && result.agent.id).toBe(existing.id);
    expect((await findAgentByEmail(handle.db, "bia@example.com"))?.externalSubject).toBe("partner-bia");
  });

  it("never takes over a supervisor's or a password account", async () => {
    await insertAgent(handle.db, {
      email: "chefe@example.com",
      name: "Chefe",
      role: "supervisor",
      passwordHash: null,
    });
    await insertAgent(handle.db, {
      email: "senha@example.com",
      name: "Senha",
      role: "agent",
      passwordHash: "$argon2id$x",
    });
    for (const email of ["chefe@example.com", "senha@example.com"]) {
      expect(await signIn(await token({ sub: `partner-${email}`, email }))).toEqual({
        ok: false,
        problem: "invalid",
      });
      expect((await findAgentByEmail(handle.db, email))?.externalSubject).toBeNull();
    }
  });

  it("refuses an e-mail already linked to another partner id", async () => {
    expect(await signIn(await token({ sub: "someone-else", email: "bia@example.com" }))).toEqual({
      ok: false,
      problem: "invalid",
    });
  });

  it("accepts a token once", async () => {
    const jwt = await token({ sub: "partner-once", email: "once@example.com" });
    expect((await signIn(jwt)).ok).toBe(true);
    expect(await signIn(jwt)).toEqual({ ok: false, problem: "replayed" });
  });

  it("refuses expired tokens, allowing 60 seconds of clock skew", async () => {
    const jwt = await token(
      { sub: "partner-late", email: "late@example.com" },
      { iat: nowSeconds - 150, lifetime: 120 },
    );
    expect((await signIn(jwt)).ok).toBe(true);
    const expired = await token(
      { sub: "partner-late", email: "late@example.com" },
      { iat: nowSeconds - 300, lifetime: 120 },
    );
    expect(await signIn(expired)).toEqual({ ok: false, problem: "expired" });
  });

  it.each([
    ["a lifetime over 5 minutes", () => token({}, { lifetime: 301 })],
    ["another secret", () => token({}, { secret: "some-other-secret-of-sufficient-length-01" })],
    ["no name", () => token({ name: "" })],
    ["no e-mail", () => token({ email: "" })],
    ["an issue time in the future", () => token({}, { iat: nowSeconds + 600 })],
    ["garbage", async () => "not.a.jwt"],
  ])("refuses %s as invalid", async (_case, make) => {
    expect(await signIn(await make())).toEqual({ ok: false, problem: "invalid" });
  });

  it("refuses a disabled agent", async () => {
    await signIn(await token({ sub: "partner-off", email: "off@example.com" }));
    await setAgentDisabled(handle.db, "off@example.com", true);
    expect(await signIn(await token({ sub: "partner-off", email: "off@example.com" }))).toEqual({
      ok: false,
      problem: "disabled",
    });
  });
});
