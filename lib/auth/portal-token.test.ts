import { createSecretKey, generateKeyPairSync, randomUUID, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Portal } from "@/lib/config/portals";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "@/lib/db/connection";
import { findAgentByEmail, insertAgent, listAgents, setAgentDisabled } from "@/lib/db/queries/agents";
import { linkIdentity } from "@/lib/db/queries/identities";
import { agentIdentities, embedTokenUses, type Agent } from "@/lib/db/schema";
import { testDatabases } from "@/test/databases";
import { signInWithPortalToken, tokenNamesSessionAgent } from "./portal-token";

const NOW = new Date("2026-11-22T12:00:00Z");
const nowSeconds = Math.floor(NOW.getTime() / 1000);

interface Signer {
  issuer: string;
  alg: string;
  key: KeyObject;
}

function portal(
  issuer: string,
  algorithm: Portal["algorithm"],
  options: Partial<Pick<Portal, "adoptsLegacyAgents" | "createsAgents" | "allowsSupervisors">> = {},
) {
  const { publicKey, privateKey } =
    algorithm === "ES256"
      ? generateKeyPairSync("ec", { namedCurve: "P-256" })
      : generateKeyPairSync("ed25519");
  const secret = createSecretKey(Buffer.from(`${issuer}-secret-of-enough-length-0123456789`));
  const configured: Portal = {
    issuer,
    algorithm,
    key: algorithm === "HS256" ? secret : publicKey,
    adoptsLegacyAgents: false,
    emailDomains: options.createsAgents === false ? [] : ["example.com"],
    createsAgents: true,
    allowsSupervisors: false,
    ...options,
  };
  const signer: Signer = { issuer, alg: algorithm, key: algorithm === "HS256" ? secret : privateKey };
  return { configured, signer };
}

// The HS256 portal is the one that adopts agents linked before tokens named their issuer, and may open supervisor
// sessions; the last one creates no agents (an operator links each).
const hs = portal("https://portal-a.example", "HS256", { adoptsLegacyAgents: true, allowsSupervisors: true });
const es = portal("https://portal-b.example", "ES256");
const ed = portal("crm-c", "EdDSA");
const linkedOnly = portal("https://crm-d.example", "HS256", { createsAgents: false });
const PORTALS = [hs.configured, es.configured, ed.configured, linkedOnly.configured];

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
  const signIn = async (jwt: string, now = NOW) => signInWithPortalToken(handle.db, jwt, PORTALS, now);
  const refusal = async (jwt: Promise<string>) => {
    const result = await signIn(await jwt);
    return result.ok ? "signed in" : result.problem;
  };

  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  const identitiesOf = (agent: Pick<Agent, "id">) =>
    handle.db
      .select({
        kind: agentIdentities.kind,
        issuer: agentIdentities.issuer,
        subject: agentIdentities.subject,
      })
      .from(agentIdentities)
      .where(eq(agentIdentities.agentId, agent.id));

  it("creates the agent on first use, finds them by the partner's id after, and passes the form's prefill", async () => {
    const first = await signIn(
      await token({ prefill: { customerName: "Cliente", planId: "x", other: "dropped", externalId: 7 } }),
    );
    expect(first).toMatchObject({
      ok: true,
      agent: { email: "ana.portal@example.com", role: "agent" },
      role: "agent",
      outcome: "created",
      identity: { kind: "portal", issuer: "https://portal-a.example", subject: "partner-42" },
    });
    expect(first.ok && first.prefill).toEqual({ customerName: "Cliente", planId: "x" });
    const again = await signIn(await token({ email: "new.address@example.com" }));
    expect(again).toMatchObject({ ok: true, outcome: "known" });
    expect(again.ok && again.agent.id).toBe(first.ok && first.agent.id);
  });

  it.each([
    ["ES256", es.signer],
    ["EdDSA", ed.signer],
    ["EdDSA under its RFC 9864 name Ed25519", { ...ed.signer, alg: "Ed25519" }],
  ])("signs in with a portal's %s key, which the app holds only the public half of", async (_alg, signer) => {
    const sub = `partner-${signer.alg}-${signer.issuer}`;
    const result = await signIn(await token({ sub, email: `${signer.alg}.portal@example.com` }, { signer }));
    expect(result).toMatchObject({
      ok: true,
      identity: { kind: "portal", issuer: signer.issuer, subject: sub },
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
    ])("refuses an %s as a signature that does not hold, signing no one in", async (_case, signer) => {
      const email = `forged.${randomUUID()}@example.com`;
      expect(await refusal(token({ sub: "partner-forged", email }, { signer }))).toBe("signature");
      expect(await findAgentByEmail(handle.db, email)).toBeUndefined();
    });
  });

  describe("agents linked before tokens named their issuer", () => {
    let legacy: Agent;
    beforeAll(async () => {
      legacy = await insertAgent(handle.db, {
        email: "legacy@example.com",
        name: "Legado",
        role: "agent",
        passwordHash: null,
      });
      // As migration 0013 records one: a portal identity with no issuer.
      await handle.db.insert(agentIdentities).values({
        agentId: legacy.id,
        kind: "portal",
        issuer: "",
        subject: "legacy-7",
        linkedBy: "migration",
      });
    });

    it("are never matched by another portal, nor by e-mail", async () => {
      const other = await signIn(
        await token({ sub: "legacy-7", email: "legacy.b@example.com" }, { signer: es.signer }),
      );
      expect(other).toMatchObject({ ok: true, outcome: "created", agent: { email: "legacy.b@example.com" } });
      expect(
        await refusal(token({ sub: "legacy-7", email: "legacy@example.com" }, { signer: ed.signer })),
      ).toBe("account_conflict");
      expect(await identitiesOf(legacy)).toEqual([{ kind: "portal", issuer: "", subject: "legacy-7" }]);
    });

    it("are adopted, once, by the portal configured to", async () => {
      const adopted = await signIn(await token({ sub: "legacy-7", email: "legacy@example.com" }));
      expect(adopted).toMatchObject({ ok: true, outcome: "adopted", agent: { id: legacy.id } });
      expect(await identitiesOf(legacy)).toEqual([
        { kind: "portal", issuer: hs.signer.issuer, subject: "legacy-7" },
      ]);
      const again = await signIn(await token({ sub: "legacy-7", email: "legacy@example.com" }));
      expect(again).toMatchObject({ ok: true, outcome: "known", agent: { id: legacy.id } });
    });
  });

  describe("an e-mail another account has", () => {
    it.each([
      ["an account without a password or identity", { role: "agent" as const, passwordHash: null }],
      ["a supervisor", { role: "supervisor" as const, passwordHash: null }],
      ["a password account", { role: "agent" as const, passwordHash: "$argon2id$x" }],
    ])("never takes over %s: refused, nothing created or linked", async (_case, account) => {
      const email = `taken.${randomUUID().slice(0, 8)}@example.com`;
      const existing = await insertAgent(handle.db, { email, name: "Existente", ...account });
      const before = (await listAgents(handle.db)).length;
      const result = await signIn(await token({ sub: `partner-${email}`, email: email.toUpperCase() }));
      expect(result).toMatchObject({ ok: false, problem: "account_conflict", agentId: existing.id });
      expect(await identitiesOf(existing)).toEqual([]);
      expect((await listAgents(handle.db)).length).toBe(before);
    });

    it("refuses an e-mail another portal's agent has, or an IdP's", async () => {
      const atB = await signIn(await token({ sub: "b-1", email: "bia@example.com" }, { signer: es.signer }));
      expect(atB.ok).toBe(true);
      expect(await refusal(token({ sub: "someone-else", email: "bia@example.com" }))).toBe(
        "account_conflict",
      );
    });
  });

  it("refuses an e-mail outside the portal's domains, before anything is spent or written", async () => {
    for (const email of ["ana@other.example", "ana@x.example.com", "ana@example.com.evil.example"]) {
      const result = await signIn(await token({ sub: "partner-domain", email }));
      expect(result).toMatchObject({ ok: false, problem: "email_domain", issuer: hs.signer.issuer });
      expect(await findAgentByEmail(handle.db, email)).toBeUndefined();
    }
  });

  it("signs in only the agents an operator linked, at a portal that creates none", async () => {
    const email = "linked.only@example.com";
    expect(await refusal(token({ sub: "d-1", email }, { signer: linkedOnly.signer }))).toBe("not_linked");
    expect(await findAgentByEmail(handle.db, email)).toBeUndefined();
    const agent = await insertAgent(handle.db, { email, name: "Ligada", role: "agent", passwordHash: null });
    await linkIdentity(handle.db, {
      agentId: agent.id,
      key: { kind: "portal", issuer: linkedOnly.signer.issuer, subject: "d-1" },
      actor: { actor: "cli:test", door: "cli" },
    });
    // Whatever e-mail the token names: the identity decides.
    const result = await signIn(
      await token({ sub: "d-1", email: "whatever@example.com" }, { signer: linkedOnly.signer }),
    );
    expect(result).toMatchObject({ ok: true, outcome: "known", agent: { id: agent.id, email } });
  });

  it("opens a supervisor session only for a portal allowed to, when its token says so", async () => {
    const asked = { sub: "boss-1", email: "boss@example.com", role: "supervisor" };
    expect(await signIn(await token(asked))).toMatchObject({ ok: true, role: "supervisor" });
    expect(
      await signIn(
        await token({ ...asked, sub: "boss-2", email: "boss.b@example.com" }, { signer: es.signer }),
      ),
    ).toMatchObject({
      ok: true,
      role: "agent",
    });
    // The next token without the claim: an agent again, and the change is reported.
    expect(await signIn(await token({ sub: "boss-1", email: "boss@example.com" }))).toMatchObject({
      ok: true,
      role: "agent",
      previousRole: "supervisor",
    });
    expect(
      await refusal(token({ ...asked, sub: "boss-3", email: "boss.c@example.com", role: "admin" })),
    ).toBe("claims");
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
  ])("refuses %s as claims the portal got wrong", async (_case, make) => {
    expect(await refusal(make())).toBe("claims");
  });

  const fromHs = Buffer.from(JSON.stringify({ iss: hs.signer.issuer })).toString("base64url");
  it.each([
    ["garbage", "not.a.jwt"],
    ["two parts", `eyJhbGciOiJIUzI1NiJ9.${fromHs}`],
    ["a known portal's claims under a header that is no JSON", `bm90IGpzb24.${fromHs}.c2ln`],
    ["an empty text", ""],
  ])("refuses %s as no signed token at all", async (_case, jwt) => {
    expect(await refusal(Promise.resolve(jwt))).toBe("malformed");
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
