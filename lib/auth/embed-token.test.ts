import { createSecretKey, generateKeyPairSync, randomUUID, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmbedPortal } from "@/lib/config/portals";
import type { DatabaseHandle } from "@/lib/db/connection";
import { findAgentByEmail, insertAgent, setAgentDisabled } from "@/lib/db/queries/agents";
import { agents, embedTokenUses } from "@/lib/db/schema";
import { testDatabases } from "@/test/databases";
import { signInWithEmbedToken, tokenNamesSessionAgent } from "./embed-token";

const NOW = new Date("2026-11-22T12:00:00Z");
const nowSeconds = Math.floor(NOW.getTime() / 1000);

interface Signer {
  issuer: string;
  alg: string;
  key: KeyObject;
}

function portal(issuer: string, algorithm: EmbedPortal["algorithm"], adoptsLegacyAgents = false) {
  const { publicKey, privateKey } =
    algorithm === "ES256"
      ? generateKeyPairSync("ec", { namedCurve: "P-256" })
      : generateKeyPairSync("ed25519");
  const secret = createSecretKey(Buffer.from(`${issuer}-secret-of-enough-length-0123456789`));
  const configured: EmbedPortal = {
    issuer,
    algorithm,
    key: algorithm === "HS256" ? secret : publicKey,
    adoptsLegacyAgents,
  };
  const signer: Signer = { issuer, alg: algorithm, key: algorithm === "HS256" ? secret : privateKey };
  return { configured, signer };
}

// The HS256 portal is the one that adopts agents linked before tokens named their issuer.
const hs = portal("https://portal-a.example", "HS256", true);
const es = portal("https://portal-b.example", "ES256");
const ed = portal("crm-c", "EdDSA");
const PORTALS = [hs.configured, es.configured, ed.configured];

interface TokenOptions {
  signer?: Signer;
  /** null leaves the claim or header out. */
  iss?: string | null;
  alg?: string;
  typ?: string | null;
  aud?: string | string[] | null;
  iat?: number;
  lifetime?: number;
  jti?: string;
}

function token(claims: Record<string, unknown> = {}, options: TokenOptions = {}) {
  const signer = options.signer ?? hs.signer;
  const {
    iss = signer.issuer,
    alg = signer.alg,
    typ = "partner-sales-embed+jwt",
    aud = "partner-sales",
    iat = nowSeconds,
    lifetime = 120,
    jti = randomUUID(),
  } = options;
  const jwt = new SignJWT({ email: "ana.portal@example.com", name: "Ana Portal", ...claims })
    .setProtectedHeader({ alg, ...(typ ? { typ } : {}) })
    .setSubject(typeof claims.sub === "string" ? claims.sub : "partner-42")
    .setIssuedAt(iat)
    .setExpirationTime(iat + lifetime)
    .setJti(jti);
  if (iss) jwt.setIssuer(iss);
  if (aud) jwt.setAudience(aud);
  return jwt.sign(signer.key);
}

describe.each(testDatabases)("embed sign-in tokens on $name", ({ open }) => {
  let handle: DatabaseHandle;
  const signIn = async (jwt: string, now = NOW) => signInWithEmbedToken(handle.db, jwt, PORTALS, now);
  const refusal = async (jwt: Promise<string>) => {
    const result = await signIn(await jwt);
    return result.ok ? "signed in" : result.problem;
  };

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
      agent: {
        email: "ana.portal@example.com",
        role: "agent",
        externalIssuer: "https://portal-a.example",
        externalSubject: "partner-42",
      },
    });
    expect(first.ok && first.prefill).toEqual({ customerName: "Cliente", planId: "x" });
    const again = await signIn(await token({ email: "new.address@example.com" }));
    expect(again.ok && again.agent.id).toBe(first.ok && first.agent.id);
  });

  it.each([
    ["ES256", es.signer],
    ["EdDSA", ed.signer],
    ["EdDSA under its RFC 9864 name Ed25519", { ...ed.signer, alg: "Ed25519" }],
  ])("signs in with a portal's %s key, which the app holds only the public half of", async (_alg, signer) => {
    const sub = `partner-${signer.alg}-${signer.issuer}`;
    const result = await signIn(
      await token({ sub, email: `${signer.alg}@${signer.issuer}.example` }, { signer }),
    );
    expect(result).toMatchObject({
      ok: true,
      agent: { externalIssuer: signer.issuer, externalSubject: sub },
    });
  });

  it("keeps the same partner id at two portals as two agents", async () => {
    const atA = await signIn(await token({ sub: "shared-7", email: "seven.a@example.com" }));
    const atB = await signIn(
      await token({ sub: "shared-7", email: "seven.b@example.com" }, { signer: es.signer }),
    );
    expect(atA.ok && atB.ok).toBe(true);
    expect(atA.ok && atA.agent.id).not.toBe(atB.ok && atB.agent.id);
    // And each portal finds its own again.
    const againB = await signIn(
      await token({ sub: "shared-7", email: "seven.b@example.com" }, { signer: es.signer }),
    );
    expect(againB.ok && againB.agent.id).toBe(atB.ok && atB.agent.id);
  });

  it("lets two portals use the same jti", async () => {
    const jti = "order-1";
    expect(await refusal(token({ sub: "jti-a", email: "jti.a@example.com" }, { jti }))).toBe("signed in");
    expect(
      await refusal(token({ sub: "jti-b", email: "jti.b@example.com" }, { jti, signer: es.signer })),
    ).toBe("signed in");
  });

  describe("tokens not meant for this app, or from no portal it knows", () => {
    it.each([
      ["no aud", { aud: null }],
      ["another aud", { aud: "another-app" }],
      ["a second aud besides ours", { aud: ["partner-sales", "another-app"] }],
      ["no typ", { typ: null }],
      ["the plain JWT typ", { typ: "JWT" }],
      ["an access token's typ", { typ: "at+jwt" }],
      ["no iss", { iss: null }],
      ["an iss no portal has", { iss: "https://stranger.example" }],
    ])("refuses %s as misaddressed", async (_case, options) => {
      expect(await refusal(token({ sub: "partner-misaddressed" }, options))).toBe("misaddressed");
    });
  });

  describe("tokens signed with a key that is not the issuer's", () => {
    const otherP256 = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    const otherEd25519 = generateKeyPairSync("ed25519").privateKey;
    const otherSecret = createSecretKey(Buffer.from("some-other-secret-of-sufficient-length-01"));
    it.each([
      ["HS256 portal, another portal's ES256 key", { ...es.signer, issuer: hs.signer.issuer }],
      ["HS256 portal, another secret", { ...hs.signer, key: otherSecret }],
      ["ES256 portal, the HS256 portal's secret", { ...hs.signer, issuer: es.signer.issuer }],
      ["ES256 portal, the EdDSA portal's key", { ...ed.signer, issuer: es.signer.issuer }],
      ["ES256 portal, an unknown P-256 key", { ...es.signer, key: otherP256 }],
      ["EdDSA portal, the ES256 portal's key", { ...es.signer, issuer: ed.signer.issuer }],
      ["EdDSA portal, an unknown Ed25519 key", { ...ed.signer, key: otherEd25519 }],
      // The classic confusion: the public key used as an HMAC secret. The algorithm is the portal's, not the token's.
      [
        "ES256 portal, its own public key as an HS256 secret",
        {
          issuer: es.signer.issuer,
          alg: "HS256",
          key: createSecretKey(es.configured.key.export({ format: "pem", type: "spki" }) as Buffer),
        },
      ],
    ])("refuses an %s as invalid, signing no one in", async (_case, signer) => {
      const email = `forged.${randomUUID()}@example.com`;
      expect(await refusal(token({ sub: "partner-forged", email }, { signer }))).toBe("invalid");
      expect(await findAgentByEmail(handle.db, email)).toBeUndefined();
    });
  });

  describe("agents linked before tokens named their issuer", () => {
    beforeAll(async () => {
      await handle.db.insert(agents).values({
        email: "legacy@example.com",
        name: "Legado",
        role: "agent",
        externalSubject: "legacy-7",
      });
    });

    it("are never matched by another portal: its own agent with that id is a new one", async () => {
      const other = await signIn(
        await token({ sub: "legacy-7", email: "legacy.b@example.com" }, { signer: es.signer }),
      );
      expect(other).toMatchObject({
        ok: true,
        agent: { email: "legacy.b@example.com", externalIssuer: es.signer.issuer },
      });
      // Nor by e-mail: the legacy account is linked already.
      expect(
        await refusal(token({ sub: "legacy-7", email: "legacy@example.com" }, { signer: ed.signer })),
      ).toBe("invalid");
      expect((await findAgentByEmail(handle.db, "legacy@example.com"))?.externalIssuer).toBeNull();
    });

    it("are adopted, once, by the portal configured to", async () => {
      const adopted = await signIn(await token({ sub: "legacy-7", email: "legacy@example.com" }));
      expect(adopted).toMatchObject({
        ok: true,
        agent: { email: "legacy@example.com", externalIssuer: hs.signer.issuer, externalSubject: "legacy-7" },
      });
    });
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
    expect(await findAgentByEmail(handle.db, "bia@example.com")).toMatchObject({
      externalIssuer: hs.signer.issuer,
      externalSubject: "partner-bia",
    });
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
      expect(await refusal(token({ sub: `partner-${email}`, email }))).toBe("invalid");
      expect((await findAgentByEmail(handle.db, email))?.externalSubject).toBeNull();
    }
  });

  it("refuses an e-mail already linked to another partner id", async () => {
    expect(await refusal(token({ sub: "someone-else", email: "bia@example.com" }))).toBe("invalid");
  });

  it("accepts a token once", async () => {
    const jwt = await token({ sub: "partner-once", email: "once@example.com" });
    expect((await signIn(jwt)).ok).toBe(true);
    expect(await signIn(jwt)).toMatchObject({ ok: false, problem: "replayed" });
  });

  it("refuses expired tokens, allowing 60 seconds of clock skew", async () => {
    const late = { sub: "partner-late", email: "late@example.com" };
    expect(await refusal(token(late, { iat: nowSeconds - 150, lifetime: 120 }))).toBe("signed in");
    expect(await refusal(token(late, { iat: nowSeconds - 300, lifetime: 120 }))).toBe("expired");
  });

  it.each([
    ["a lifetime over 5 minutes", () => token({}, { lifetime: 301 })],
    ["no name", () => token({ name: "" })],
    ["no e-mail", () => token({ email: "" })],
    ["an issue time in the future", () => token({}, { iat: nowSeconds + 600 })],
    ["garbage", async () => "not.a.jwt"],
  ])("refuses %s as invalid", async (_case, make) => {
    expect(await refusal(make())).toBe("invalid");
  });

  it("refuses a disabled agent", async () => {
    await signIn(await token({ sub: "partner-off", email: "off@example.com" }));
    await setAgentDisabled(handle.db, "off@example.com", true);
    expect(await refusal(token({ sub: "partner-off", email: "off@example.com" }))).toBe("disabled");
  });

  describe("a used or expired token over a live session (the reload rule)", () => {
    const who = { sub: "partner-reload", email: "reload@example.com", prefill: { customerName: "Recarga" } };
    let agentId: string;
    let otherAgentId: string;
    let used: string;
    const namesSessionAgent = async (jwt: string | Promise<string>, sessionAgentId = agentId, now = NOW) =>
      tokenNamesSessionAgent(handle.db, await jwt, PORTALS, sessionAgentId, now);
    const uses = async () => (await handle.db.select().from(embedTokenUses)).length;

    beforeAll(async () => {
      used = await token(who);
      const first = await signIn(used);
      const other = await signIn(await token({ sub: "partner-other", email: "other@example.com" }));
      if (!first.ok || !other.ok) throw new Error("the set-up sign-ins failed");
      agentId = first.agent.id;
      otherAgentId = other.agent.id;
      expect(await refusal(Promise.resolve(used))).toBe("replayed");
    });

    it("answers with the token's prefill when the session is the agent it names, consuming nothing", async () => {
      const before = await uses();
      expect(await namesSessionAgent(used)).toEqual({ prefill: { customerName: "Recarga" } });
      expect(await uses()).toBe(before);
    });

    it("takes an expired token of the same agent too, long after its jti was forgotten", async () => {
      const expired = token(who, { iat: nowSeconds - 3600, lifetime: 300 });
      expect(await refusal(expired)).toBe("expired");
      expect(await namesSessionAgent(expired)).toEqual({ prefill: { customerName: "Recarga" } });
    });

    it("refuses another agent's session, and the same partner id at another portal", async () => {
      expect(await namesSessionAgent(used, otherAgentId)).toBeNull();
      const atAnotherPortal = await signIn(
        await token({ sub: who.sub, email: "reload.b@example.com" }, { signer: es.signer }),
      );
      expect(atAnotherPortal.ok).toBe(true);
      expect(await namesSessionAgent(used, atAnotherPortal.ok ? atAnotherPortal.agent.id : "")).toBeNull();
    });

    it.each([
      [
        "signed with another portal's key",
        () => token(who, { signer: { ...es.signer, issuer: hs.signer.issuer } }),
      ],
      [
        "signed with another secret",
        () =>
          token(who, {
            signer: {
              ...hs.signer,
              key: createSecretKey(Buffer.from("another-secret-of-sufficient-length-0123")),
            },
          }),
      ],
      ["for another audience", () => token(who, { aud: "another-app" })],
      ["of another type", () => token(who, { typ: "JWT" })],
      ["from an unknown issuer", () => token(who, { iss: "https://stranger.example" })],
      ["with a lifetime over 5 minutes", () => token(who, { lifetime: 301 })],
      ["issued in the future", () => token(who, { iat: nowSeconds + 600 })],
      ["garbage", async () => "not.a.jwt"],
    ])("refuses a token %s, even naming the session's agent", async (_case, make) => {
      expect(await namesSessionAgent(make())).toBeNull();
    });

    it("refuses a disabled agent", async () => {
      const off = { sub: "partner-reload-off", email: "reload.off@example.com" };
      const jwt = await token(off);
      const signedIn = await signIn(jwt);
      if (!signedIn.ok) throw new Error("the set-up sign-in failed");
      await setAgentDisabled(handle.db, off.email, true);
      expect(await namesSessionAgent(jwt, signedIn.agent.id)).toBeNull();
    });
  });
});
