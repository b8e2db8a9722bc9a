import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db/connection";
import { findAgentByEmail, insertAgent } from "@/lib/db/queries/agents";
import { findIdentity, linkIdentity } from "@/lib/db/queries/identities";
import { findSessionAgent } from "@/lib/db/queries/sessions";
import {
  agentIdentities,
  agents,
  recoveryCodes,
  secondFactors,
  sessions,
  signInThrottle,
  type Agent,
} from "@/lib/db/schema";
import { sessionTag } from "@/lib/security-log/line";
import { openTestSession, TEST_SESSION_LIMITS } from "@/test/sessions";
import { runTool } from "@/test/cli";
import { testDatabases } from "@/test/databases";

const agentsCli = (args: string[], env: Record<string, string>, input?: string) =>
  runTool("agents", args, env, input);

/** The security events a command wrote to standard error, as JSON lines. */
const securityLines = (stderr: string) =>
  stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.category === "security");

const IDP = "http://127.0.0.1:4400";
const PORTAL = "https://crm.partner.example";

describe.each(testDatabases)("agents CLI on $name, while the app holds the database", ({ open }) => {
  let handle: DatabaseHandle & { databaseUrl?: string; dataDir: string };
  let env: Record<string, string>;
  /** The same, with the partner's IdP and one portal configured: the doors `link` and `unlink` name. */
  let withDoors: Record<string, string>;

  beforeAll(async () => {
    // Opened as the app opens it: for PGlite that holds DATA_DIR and serves the CLI through its socket.
    handle = await open();
    env = { DATA_DIR: handle.dataDir, DATABASE_URL: handle.databaseUrl ?? "" };
    const portalsFile = join(handle.dataDir, "portals.json");
    writeFileSync(
      portalsFile,
      JSON.stringify([
        {
          issuer: PORTAL,
          alg: "HS256",
          secret: "a-portal-secret-of-enough-length-0123456789",
          createAgents: false,
        },
      ]),
    );
    withDoors = {
      ...env,
      AUTH_URL: "http://localhost:3000",
      OIDC_ISSUER: IDP,
      OIDC_CLIENT_ID: "partner-sales",
      OIDC_CLIENT_SECRET: "secret",
      EMBED_ALLOWED_ORIGINS: "http://localhost:3299",
      EMBED_PORTALS_FILE: portalsFile,
    };
  });
  afterAll(() => handle.close());

  it("adds an agent with a generated password, printed once", async () => {
    const result = await agentsCli(["add", "--email", "Joana@Example.com", "--name", "Joana Lima"], env);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /^Added joana@example\.com {2}Joana Lima {2}agent {2}active\nPassword: \S{19}\nThe agent must change this password at first sign-in\.\n$/,
    );
    const agent = await findAgentByEmail(handle.db, "joana@example.com");
    expect(agent?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    // A password someone else chose is for one sign-in: the first one asks for a new one.
    expect(agent?.passwordChangeRequired).toBe(true);
  });

  it("refuses a second agent with the same e-mail in another letter case", async () => {
    const result = await agentsCli(["add", "--email", "JOANA@example.com", "--name", "Outra"], env);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("An agent with the e-mail joana@example.com already exists.");
  });

  it("adds a supervisor with a password from standard input", async () => {
    const result = await agentsCli(
      ["add", "--email", "sup@example.com", "--name", "Sup", "--role", "supervisor", "--password-stdin"],
      env,
      "a long enough password\n",
    );
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain("Password:");
    expect(result.stdout).toContain("The agent must change this password at first sign-in.");
    const agent = await findAgentByEmail(handle.db, "sup@example.com");
    expect(agent?.role).toBe("supervisor");
    expect(agent?.passwordChangeRequired).toBe(true);
  });

  it.each([
    [["--password", "password"], "it is among the most common or breached passwords."],
    [["--password", "Senha123"], "it is among the most common or breached passwords."],
    [["--password", "marcos.rocha-2024"], "it contains the account's e-mail address."],
    [["--password", "o marcos da rocha"], "it contains the account's name."],
    [["--password", "curta"], "it must have at least 8 characters."],
    [["--password-stdin"], "it holds control characters, which cannot be used."],
  ])("refuses a password typed for a new account, %j, and creates none", async (password, why) => {
    const result = await agentsCli(
      ["add", "--email", "marcos.rocha@example.com", "--name", "Marcos Rocha", ...password],
      env,
      "ab\u0000cdefghij\n",
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`The password is refused: ${why}`);
    expect(result.stdout).toBe("");
    expect(await findAgentByEmail(handle.db, "marcos.rocha@example.com")).toBeUndefined();
  });

  it("lists, disables, enables and resets passwords", async () => {
    expect((await agentsCli(["list"], env)).stdout).toBe(
      "joana@example.com  Joana Lima  agent  active  password\nsup@example.com  Sup  supervisor  active  password\n",
    );
    expect((await agentsCli(["disable", "--email", "joana@example.com"], env)).status).toBe(0);
    expect((await findAgentByEmail(handle.db, "joana@example.com"))?.disabledAt).toBeInstanceOf(Date);
    expect((await agentsCli(["list"], env)).stdout).toContain(
      "joana@example.com  Joana Lima  agent  disabled",
    );
    expect((await agentsCli(["enable", "--email", "joana@example.com"], env)).status).toBe(0);
    expect((await findAgentByEmail(handle.db, "joana@example.com"))?.disabledAt).toBeNull();

    const before = await findAgentByEmail(handle.db, "joana@example.com");
    for (const [password, why] of [
      ["qwerty123", "it is among the most common or breached passwords."],
      ["joana-secreta", "it contains the account's e-mail address."],
      ["a senhora LIMA", "it contains the account's name."],
    ]) {
      const refused = await agentsCli(
        ["reset-password", "--email", "JOANA@example.com", "--password", password!],
        env,
      );
      expect(refused.status).toBe(2);
      expect(refused.stderr).toContain(`The password is refused: ${why}`);
    }
    expect((await findAgentByEmail(handle.db, "joana@example.com"))?.passwordHash).toBe(before?.passwordHash);

    // The agent had changed the first password: a new one from the operator is again for one sign-in.
    await handle.db
      .update(agents)
      .set({ passwordChangeRequired: false })
      .where(eq(agents.email, "joana@example.com"));
    const reset = await agentsCli(
      ["reset-password", "--email", "joana@example.com", "--password", "another password"],
      env,
    );
    expect(reset.status).toBe(0);
    expect(reset.stdout).toBe(
      "New password set for joana@example.com; open sessions ended.\n" +
        "The agent must change this password at first sign-in.\n",
    );
    const after = await findAgentByEmail(handle.db, "joana@example.com");
    expect(after?.passwordHash).not.toBe(before?.passwordHash);
    expect(after?.passwordChangeRequired).toBe(true);
  });

  const limits = TEST_SESSION_LIMITS;
  const openFor = (agent: Agent, door: string, identityId: string | null = null) =>
    openTestSession(handle.db, agent, {
      door,
      identityId,
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/140",
    });
  const isLive = async (agentId: string, sessionId: string) =>
    Boolean(await findSessionAgent(handle.db, { agentId, sessionId, now: new Date(), limits }));

  it("lists an agent's open sessions and ends them, each in the security log on standard error", async () => {
    const agent = (await findAgentByEmail(handle.db, "sup@example.com"))!;
    const session = await openFor(agent, "password");
    const listed = await agentsCli(["sessions", "--email", "SUP@example.com"], env);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain("sup@example.com: 1 open session\n");
    expect(listed.stdout).toContain(`${sessionTag(session)}  password  supervisor  since `);
    expect(listed.stdout).toContain("Chrome/140");
    // The session's id is the cookie's secret half: never printed.
    expect(listed.stdout).not.toContain(session);

    const ended = await agentsCli(["end-sessions", "--email", "sup@example.com"], env);
    expect(ended.stdout).toBe("Ended 1 session of sup@example.com.\n");
    expect(securityLines(ended.stderr)).toEqual([
      expect.objectContaining({
        event: "auth.session_ended",
        category: "security",
        outcome: "success",
        door: "password",
        agentId: agent.id,
        session: sessionTag(session),
        reason: "ended_by_operator",
        address: null,
      }),
    ]);
    expect(await isLive(agent.id, session)).toBe(false);
    expect((await agentsCli(["sessions", "--email", "sup@example.com"], env)).stdout).toBe(
      "sup@example.com has no open session.\n",
    );
  });

  it("adds an account without a password, and by default when passwords are off", async () => {
    const explicit = await agentsCli(
      ["add", "--email", "sso@example.com", "--name", "Só SSO", "--no-password"],
      env,
    );
    expect(explicit.status).toBe(0);
    expect(explicit.stdout).toContain(
      "(no password: link its IdP or portal identity with npm run agents -- link)",
    );
    expect((await findAgentByEmail(handle.db, "sso@example.com"))?.passwordHash).toBeNull();
    expect(securityLines(explicit.stderr)).toEqual([
      expect.objectContaining({ event: "account.created", door: "cli", agentId: expect.any(String) }),
    ]);

    const byDefault = await agentsCli(["add", "--email", "sso2@example.com", "--name", "Só SSO"], {
      ...withDoors,
      PASSWORD_SIGN_IN: "off",
    });
    expect(byDefault.status).toBe(0);
    expect((await findAgentByEmail(handle.db, "sso2@example.com"))?.passwordHash).toBeNull();

    const both = await agentsCli(
      ["add", "--email", "x@example.com", "--name", "X", "--password", "password123", "--no-password"],
      env,
    );
    expect(both.status).toBe(2);
  });

  it("links an IdP identity and a portal's to one account, and refuses one that is someone else's", async () => {
    const agent = (await findAgentByEmail(handle.db, "sso@example.com"))!;
    const idp = await agentsCli(
      ["link", "--email", "sso@example.com", "--idp", "--subject", "idp-42"],
      withDoors,
    );
    expect(idp.stdout).toContain(`Linked sso@example.com to oidc:${IDP} "idp-42"`);
    expect(securityLines(idp.stderr)).toEqual([
      expect.objectContaining({ event: "account.identity_linked", door: "cli", agentId: agent.id }),
    ]);
    const portal = await agentsCli(
      ["link", "--email", "sso@example.com", "--portal", PORTAL, "--subject", "crm-7"],
      withDoors,
    );
    expect(portal.status).toBe(0);
    expect((await agentsCli(["list"], withDoors)).stdout).toContain(
      `sso@example.com  Só SSO  agent  active  oidc:${IDP} (sub idp-42), portal:${PORTAL} (sub crm-7)\n`,
    );
    expect(await findIdentity(handle.db, { kind: "portal", issuer: PORTAL, subject: "crm-7" })).toMatchObject(
      {
        agent: { id: agent.id },
        identity: { linkedBy: "operator" },
      },
    );

    const taken = await agentsCli(
      ["link", "--email", "sso2@example.com", "--portal", PORTAL, "--subject", "crm-7"],
      withDoors,
    );
    expect(taken.status).toBe(1);
    expect(taken.stderr).toContain(
      `portal:${PORTAL} "crm-7" is linked to sso@example.com: unlink it there first`,
    );
    const second = await agentsCli(
      ["link", "--email", "sso@example.com", "--idp", "--subject", "idp-43"],
      withDoors,
    );
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`sso@example.com has another identity at oidc:${IDP}: unlink it first`);
    const unknownPortal = await agentsCli(
      ["link", "--email", "sso@example.com", "--portal", "https://stranger.example", "--subject", "x"],
      withDoors,
    );
    expect(unknownPortal.status).toBe(2);
    expect(unknownPortal.stderr).toContain(`is no portal's issuer here (configured: ${PORTAL})`);
  });

  it("invites an account to the IdP for seven days, listed until a sign-in takes it", async () => {
    const invited = await agentsCli(["link", "--email", "sso2@example.com", "--idp"], withDoors);
    expect(invited.stdout).toContain("Invited sso2@example.com: the next sign-in through");
    const until = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    expect((await agentsCli(["list"], withDoors)).stdout).toContain(
      `sso2@example.com  Só SSO  agent  active  oidc:${IDP} (invited until ${until})\n`,
    );
    expect(
      (await agentsCli(["link", "--email", "sso2@example.com", "--portal", PORTAL], withDoors)).status,
    ).toBe(2);
  });

  it("unlinks a door's identity and ends the sessions opened through it, and only those", async () => {
    const agent = (await findAgentByEmail(handle.db, "sso@example.com"))!;
    const identity = await findIdentity(handle.db, { kind: "oidc", issuer: IDP, subject: "idp-42" });
    const portal = await findIdentity(handle.db, { kind: "portal", issuer: PORTAL, subject: "crm-7" });
    const throughIdp = await openFor(agent, `oidc:${IDP}`, identity!.identity.id);
    const throughPortal = await openFor(agent, `portal:${PORTAL}`, portal!.identity.id);
    const unlinked = await agentsCli(["unlink", "--email", "sso@example.com", "--idp"], withDoors);
    expect(unlinked.stdout).toContain(
      "Unlinked sso@example.com from the IdP and ended 1 session opened through it.",
    );
    expect(securityLines(unlinked.stderr).map((line) => [line.event, line.reason])).toEqual([
      ["account.identity_unlinked", null],
      ["auth.session_ended", "identity_unlinked"],
    ]);
    expect(await isLive(agent.id, throughIdp)).toBe(false);
    expect(await isLive(agent.id, throughPortal)).toBe(true);
    expect(await findIdentity(handle.db, { kind: "oidc", issuer: IDP, subject: "idp-42" })).toBeUndefined();
    const again = await agentsCli(["unlink-idp", "--email", "sso@example.com"], withDoors);
    expect(again.stdout).toContain("sso@example.com has no identity at the IdP.");
  });

  it("sets the role of password sessions, ending those, and no other door's", async () => {
    const agent = (await findAgentByEmail(handle.db, "joana@example.com"))!;
    const linked = await linkIdentity(handle.db, {
      agentId: agent.id,
      key: { kind: "portal", issuer: PORTAL, subject: "crm-joana" },
      actor: { actor: "cli:test", door: "cli" },
    });
    const password = await openFor(agent, "password");
    const portal = await openFor(agent, `portal:${PORTAL}`, linked!.identity.id);
    const promoted = await agentsCli(
      ["set-role", "--email", "joana@example.com", "--role", "supervisor"],
      env,
    );
    expect(promoted.stdout).toBe(
      "joana@example.com signs in with a password as supervisor now; 1 password session ended.\n",
    );
    expect(securityLines(promoted.stderr)).toEqual([
      expect.objectContaining({
        event: "account.role_changed",
        agentId: agent.id,
        from: "agent",
        to: "supervisor",
      }),
      expect.objectContaining({
        event: "auth.session_ended",
        reason: "role_changed",
        session: sessionTag(password),
      }),
    ]);
    expect(await isLive(agent.id, password)).toBe(false);
    expect(await isLive(agent.id, portal)).toBe(true);
    expect(
      (await agentsCli(["set-role", "--email", "joana@example.com", "--role", "supervisor"], env)).stdout,
    ).toBe("joana@example.com already has the role supervisor.\n");
  });

  it("resets an agent's second factors and recovery codes, ending their sessions, on the audit trail", async () => {
    const agent = (await findAgentByEmail(handle.db, "joana@example.com"))!;
    const confirmedAt = new Date();
    await handle.db.insert(secondFactors).values([
      { agentId: agent.id, kind: "totp", label: "Celular", totpSecret: "sealed", confirmedAt },
      {
        agentId: agent.id,
        kind: "webauthn",
        label: "Chave USB",
        credentialId: "credential-joana",
        publicKey: "public-key",
        signCount: 3,
        confirmedAt,
      },
      // An enrolment under way: it goes too, but was no factor yet.
      { agentId: agent.id, kind: "totp", label: "Celular novo", totpSecret: "sealed" },
    ]);
    await handle.db
      .insert(recoveryCodes)
      .values(Array.from({ length: 7 }, (_, index) => ({ agentId: agent.id, codeHash: `hash-${index}` })));
    // Someone else's factor stays.
    const other = (await findAgentByEmail(handle.db, "sup@example.com"))!;
    await handle.db
      .insert(secondFactors)
      .values({ agentId: other.id, kind: "totp", label: "Celular", totpSecret: "sealed", confirmedAt });
    // A password session, and the portal session opened earlier: every door's ends.
    const session = await openFor(agent, "password");
    expect(await isLive(agent.id, session)).toBe(true);
    const before = await agentsCli(["sessions", "--email", "joana@example.com"], env);
    expect(before.stdout).toContain("joana@example.com: 2 open sessions\n");
    // Locked out by the lost factor's codes: the reset lifts it.
    await handle.db
      .insert(signInThrottle)
      .values({ key: "account:joana@example.com", failures: 5, lockedUntil: new Date(Date.now() + 600_000) });

    const reset = await agentsCli(
      ["reset-second-factor", "--email", "Joana@example.com", "--reason", "ticket 4521: phone lost"],
      env,
    );
    expect(reset.status).toBe(0);
    expect(reset.stdout).toBe(
      "Second factors reset for joana@example.com: 2 factors and 7 recovery codes removed, 2 sessions ended. " +
        "The next password sign-in enrols a new factor where the policy asks for one.\n",
    );
    const [event, ...endings] = securityLines(reset.stderr);
    expect(event).toEqual(
      expect.objectContaining({
        event: "account.second_factor_reset",
        outcome: "success",
        door: "cli",
        agentId: agent.id,
        factors: 2,
        recoveryCodes: 7,
        address: null,
      }),
    );
    expect(endings).toHaveLength(2);
    for (const ending of endings) {
      expect(ending).toMatchObject({
        event: "auth.session_ended",
        agentId: agent.id,
        reason: "second_factor_reset",
      });
    }
    expect(endings.map((ending) => ending.session)).toContain(sessionTag(session));
    expect(await isLive(agent.id, session)).toBe(false);
    expect((await agentsCli(["sessions", "--email", "joana@example.com"], env)).stdout).toBe(
      "joana@example.com has no open session.\n",
    );
    const [ended] = await handle.db.select().from(sessions).where(eq(sessions.id, session));
    expect(ended?.endReason).toBe("second_factor_reset");
    expect(await handle.db.select().from(secondFactors).where(eq(secondFactors.agentId, agent.id))).toEqual(
      [],
    );
    expect(
      await handle.db
        .select()
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.agentId, agent.id), isNull(recoveryCodes.usedAt))),
    ).toEqual([]);
    expect(
      await handle.db.select().from(secondFactors).where(eq(secondFactors.agentId, other.id)),
    ).toHaveLength(1);
    expect(
      await handle.db
        .select()
        .from(signInThrottle)
        .where(eq(signInThrottle.key, "account:joana@example.com")),
    ).toEqual([]);

    const trail = await runTool("audit", ["list"], env);
    const line = trail.stdout.split("\n").find((row) => row.includes("  agent.second_factor_reset  "));
    expect(line).toContain('"ticket 4521: phone lost"');
    expect(JSON.parse(line!.split("  ").at(-1)!)).toEqual({
      agentId: agent.id,
      email: "joana@example.com",
      factors: 2,
      recoveryCodes: 7,
      sessionsEnded: 2,
    });

    const again = await agentsCli(["reset-second-factor", "--email", "joana@example.com"], env);
    expect(again.stdout).toBe(
      "Second factors reset for joana@example.com: 0 factors and 0 recovery codes removed, 0 sessions ended. " +
        "The next password sign-in enrols a new factor where the policy asks for one.\n",
    );
  });

  it("reports the accounts the migration could not tell were created with their doors, until an operator decides", async () => {
    const mixed = await insertAgent(handle.db, {
      email: "mixed@example.com",
      name: "Misto",
      role: "agent",
      passwordHash: null,
    });
    await handle.db.insert(agentIdentities).values([
      { agentId: mixed.id, kind: "oidc", issuer: IDP, subject: "idp-mixed", linkedBy: "migration" },
      { agentId: mixed.id, kind: "portal", issuer: PORTAL, subject: "crm-mixed", linkedBy: "migration" },
    ]);
    const listed = (await agentsCli(["list"], withDoors)).stdout;
    expect(listed).toContain(
      "To review: 1 account with a door that earlier versions may have linked by e-mail.",
    );
    expect(listed).toContain(`  mixed@example.com  oidc:${IDP}, portal:${PORTAL}\n`);
    // The operator keeps the IdP's and drops the portal's: nothing left to review.
    const confirmed = await agentsCli(
      ["link", "--email", "mixed@example.com", "--idp", "--subject", "idp-mixed"],
      withDoors,
    );
    expect(confirmed.stdout).toContain("are linked (confirmed)");
    expect((await agentsCli(["list"], withDoors)).stdout).toContain("To review: 1 account");
    await agentsCli(["unlink", "--email", "mixed@example.com", "--portal", PORTAL], withDoors);
    expect((await agentsCli(["list"], withDoors)).stdout).not.toContain("To review");

    // A portal identity from before tokens named an issuer: reviewed too, and unlinked by its empty issuer.
    const legacy = await insertAgent(handle.db, {
      email: "legacy@example.com",
      name: "Legado",
      role: "agent",
      passwordHash: null,
    });
    await handle.db
      .insert(agentIdentities)
      .values({ agentId: legacy.id, kind: "portal", issuer: "", subject: "old-7", linkedBy: "migration" });
    const withLegacy = (await agentsCli(["list"], withDoors)).stdout;
    expect(withLegacy).toContain(
      "legacy@example.com  Legado  agent  active  portal:(issuer not yet known) (sub old-7)",
    );
    expect(withLegacy).toContain("  legacy@example.com  portal:\n");
    const unlinked = await agentsCli(["unlink", "--email", "legacy@example.com", "--portal", ""], withDoors);
    expect(unlinked.stdout).toContain("Unlinked legacy@example.com from portal:(issuer not yet known)");
    expect((await agentsCli(["list"], withDoors)).stdout).not.toContain("To review");
  });

  it.each([
    [["add", "--name", "Sem e-mail"], "--email is required."],
    [["sessions", "--email", "nobody@example.com"], "No agent with the e-mail nobody@example.com."],
    [
      ["add", "--email", "x@example.com", "--name", "X", "--role", "admin"],
      '--role is "agent" or "supervisor".',
    ],
    [
      ["add", "--email", "x@example.com", "--name", "X", "--password", "short"],
      "The password is refused: it must have at least 8 characters.",
    ],
    [
      ["reset-password", "--email", "joana@example.com", "--password", "12345678"],
      "The password is refused: it is among the most common or breached passwords.",
    ],
    [
      ["reset-second-factor", "--email", "nobody@example.com"],
      "No agent with the e-mail nobody@example.com.",
    ],
    [["reset-second-factor"], "--email is required."],
    [
      ["reset-second-factor", "--email", "joana@example.com", "--reason", "asked by joana@example.com"],
      "--reason must not hold an e-mail",
    ],
    [["disable", "--email", "nobody@example.com"], "No agent with the e-mail nobody@example.com."],
    [["set-role", "--email", "joana@example.com"], "--role is required."],
    [["link", "--email", "joana@example.com"], "Name the door: --idp, or --portal ISSUER."],
    [
      ["link", "--email", "joana@example.com", "--idp"],
      "--idp needs the partner's IdP configured (OIDC_ISSUER).",
    ],
    [["frobnicate"], 'Unknown command "frobnicate".'],
  ])("explains a wrong call: %j", async (args, message) => {
    const result = await agentsCli(args, env);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("puts every change to an account on the audit trail, with who ran it", async () => {
    const trail = await runTool("audit", ["list"], env);
    expect(trail.status).toBe(0);
    const changes = trail.stdout
      .split("\n")
      .filter((line) => line.includes("  agent."))
      .map((line) => {
        const [, , action, actor, , , , details] = line.split("  ");
        const { command = "", agent = "", email = "" } = JSON.parse(details!) as Record<string, string>;
        return { actor, change: `${action} ${command || "-"} ${agent || email || "-"}` };
      });
    expect(changes.map(({ change }) => change)).toEqual([
      "agent.created - joana@example.com",
      "agent.created - sup@example.com",
      "agent.changed disable joana@example.com",
      "agent.changed enable joana@example.com",
      "agent.changed reset-password joana@example.com",
      "agent.changed end-sessions sup@example.com",
      "agent.created - sso@example.com",
      "agent.created - sso2@example.com",
      "agent.identity_linked - -",
      "agent.identity_linked - -",
      "agent.identity_linked - -",
      "agent.identity_unlinked - -",
      "agent.identity_linked - -",
      "agent.role_changed - joana@example.com",
      "agent.second_factor_reset - joana@example.com",
      "agent.second_factor_reset - joana@example.com",
      "agent.identity_linked - -",
      "agent.identity_unlinked - -",
      "agent.identity_unlinked - -",
    ]);
    for (const { actor } of changes) expect(actor).toMatch(/^cli:\S+$/);
    // A refused command changed nothing and recorded nothing.
    expect(trail.stdout).not.toContain("nobody@example.com");
    expect((await runTool("audit", ["verify"], env)).stdout).toMatch(/^Audit trail intact: \d+ rows/);
  });
});

describe("agents CLI and the embedded database's single-process rule", () => {
  it("opens DATA_DIR itself when no app holds it, and releases it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-cli-"));
    expect(
      (
        await agentsCli(
          ["add", "--email", "a@example.com", "--name", "A", "--password", "a long enough password"],
          {
            DATA_DIR: dataDir,
          },
        )
      ).status,
    ).toBe(0);
    expect((await agentsCli(["list"], { DATA_DIR: dataDir })).stdout).toContain("a@example.com");
    expect(readdirSync(dataDir)).not.toContain("pglite.lock");
  });

  it("refuses, saying what to do, when another live process holds DATA_DIR without a socket", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-cli-"));
    const handle: DatabaseHandle = await openDatabase({ databaseUrl: undefined, dataDir, role: "tool" });
    await handle.close();
    writeFileSync(join(dataDir, "pglite.lock"), String(process.pid));
    const result = await agentsCli(["list"], { DATA_DIR: dataDir });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Another process (pid ${process.pid}) is using the embedded database`);
  });
});
