import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/lib/db/connection";
import { findSessionAgent, openSession } from "@/lib/db/queries/sessions";
import { findAgentByEmail } from "@/lib/db/queries/agents";
import { findAgentByOidcIdentity, linkOidcIdentity } from "@/lib/db/queries/oidc-identities";
import { runTool } from "@/test/cli";
import { testDatabases } from "@/test/databases";

const agentsCli = (args: string[], env: Record<string, string>, input?: string) =>
  runTool("agents", args, env, input);

describe.each(testDatabases)("agents CLI on $name, while the app holds the database", ({ open }) => {
  let handle: DatabaseHandle & { databaseUrl?: string; dataDir: string };
  let env: Record<string, string>;

  beforeAll(async () => {
    // Opened as the app opens it: for PGlite that holds DATA_DIR and serves the CLI through its socket.
    handle = await open();
    env = { DATA_DIR: handle.dataDir, DATABASE_URL: handle.databaseUrl ?? "" };
  });
  afterAll(() => handle.close());

  it("adds an agent with a generated password, printed once", async () => {
    const result = await agentsCli(["add", "--email", "Joana@Example.com", "--name", "Joana Lima"], env);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /^Added joana@example\.com {2}Joana Lima {2}agent {2}active\nPassword: \S{19}\n$/,
    );
    const agent = await findAgentByEmail(handle.db, "joana@example.com");
    expect(agent?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
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
    expect((await findAgentByEmail(handle.db, "sup@example.com"))?.role).toBe("supervisor");
  });

  it("lists, disables, enables and resets passwords", async () => {
    expect((await agentsCli(["list"], env)).stdout).toBe(
      "joana@example.com  Joana Lima  agent  active\nsup@example.com  Sup  supervisor  active\n",
    );
    expect((await agentsCli(["disable", "--email", "joana@example.com"], env)).status).toBe(0);
    expect((await findAgentByEmail(handle.db, "joana@example.com"))?.disabledAt).toBeInstanceOf(Date);
    expect((await agentsCli(["list"], env)).stdout).toContain(
      "joana@example.com  Joana Lima  agent  disabled",
    );
    expect((await agentsCli(["enable", "--email", "joana@example.com"], env)).status).toBe(0);
    expect((await findAgentByEmail(handle.db, "joana@example.com"))?.disabledAt).toBeNull();

    const before = await findAgentByEmail(handle.db, "joana@example.com");
    const reset = await agentsCli(
      ["reset-password", "--email", "joana@example.com", "--password", "another password"],
      env,
    );
    expect(reset.status).toBe(0);
    const after = await findAgentByEmail(handle.db, "joana@example.com");
    expect(after?.passwordHash).not.toBe(before?.passwordHash);
  });

  it("lists an agent's open sessions and ends them", async () => {
    const agent = (await findAgentByEmail(handle.db, "sup@example.com"))!;
    const now = new Date();
    const limits = { idleMs: 3_600_000, absoluteMs: 43_200_000 };
    const session = await openSession(handle.db, {
      agentId: agent.id,
      method: "password",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/140",
      now,
      limits,
    });
    const listed = await agentsCli(["sessions", "--email", "SUP@example.com"], env);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain("sup@example.com: 1 open session\n");
    expect(listed.stdout).toContain(`${session}  password  since ${now.toISOString()}`);
    expect(listed.stdout).toContain("Chrome/140");

    expect((await agentsCli(["end-sessions", "--email", "sup@example.com"], env)).stdout).toBe(
      "Ended 1 session of sup@example.com.\n",
    );
    expect(
      await findSessionAgent(handle.db, { agentId: agent.id, sessionId: session, now, limits }),
    ).toBeUndefined();
    expect((await agentsCli(["sessions", "--email", "sup@example.com"], env)).stdout).toBe(
      "sup@example.com has no open session.\n",
    );
  });

  it("adds an account without a password for sign-in through the IdP, and by default when passwords are off", async () => {
    const explicit = await agentsCli(
      ["add", "--email", "sso@example.com", "--name", "Só SSO", "--no-password"],
      env,
    );
    expect(explicit.status).toBe(0);
    expect(explicit.stdout).not.toContain("Password:");
    expect((await findAgentByEmail(handle.db, "sso@example.com"))?.passwordHash).toBeNull();

    const passwordsOff = {
      ...env,
      PASSWORD_SIGN_IN: "off",
      AUTH_URL: "http://localhost:3000",
      OIDC_ISSUER: "http://127.0.0.1:4400",
      OIDC_CLIENT_ID: "partner-sales",
      OIDC_CLIENT_SECRET: "secret",
    };
    const byDefault = await agentsCli(
      ["add", "--email", "sso2@example.com", "--name", "Só SSO"],
      passwordsOff,
    );
    expect(byDefault.status).toBe(0);
    expect((await findAgentByEmail(handle.db, "sso2@example.com"))?.passwordHash).toBeNull();

    const both = await agentsCli(
      ["add", "--email", "x@example.com", "--name", "X", "--password", "password123", "--no-password"],
      env,
    );
    expect(both.status).toBe(2);
  });

  it("unlinks an agent's IdP identity and ends the sessions it opened", async () => {
    const agent = await findAgentByEmail(handle.db, "sso@example.com");
    await linkOidcIdentity(handle.db, { issuer: "https://idp.example", subject: "42" }, agent!.id);
    const now = new Date();
    const limits = { idleMs: 3_600_000, absoluteMs: 43_200_000 };
    const session = await openSession(handle.db, {
      agentId: agent!.id,
      method: "oidc",
      userAgent: null,
      now,
      limits,
    });
    const unlinked = await agentsCli(["unlink-idp", "--email", "sso@example.com"], env);
    expect(unlinked.stdout).toContain("Unlinked sso@example.com from its IdP identity and ended 1 session;");
    expect(
      await findSessionAgent(handle.db, { agentId: agent!.id, sessionId: session, now, limits }),
    ).toBeUndefined();
    expect(
      await findAgentByOidcIdentity(handle.db, { issuer: "https://idp.example", subject: "42" }),
    ).toBeUndefined();
    const again = await agentsCli(["unlink-idp", "--email", "sso@example.com"], env);
    expect(again.stdout).toContain("has no IdP identity");
  });

  it.each([
    [["add", "--name", "Sem e-mail"], "--email is required."],
    [["sessions", "--email", "nobody@example.com"], "No agent with the e-mail nobody@example.com."],
    [
      ["add", "--email", "x@example.com", "--name", "X", "--role", "admin"],
      '--role is "agent" or "supervisor".',
    ],
    [["add", "--email", "x@example.com", "--name", "X", "--password", "short"], "8 to 256 characters"],
    [["disable", "--email", "nobody@example.com"], "No agent with the e-mail nobody@example.com."],
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
      .filter((line) => line.includes("agent.changed"))
      .map((line) => {
        const [, , actor, , , details] = line.split("  ");
        return { actor, ...(JSON.parse(details!) as { command: string; agent: string }) };
      });
    expect(changes.map(({ command, agent }) => `${command} ${agent}`)).toEqual([
      "add joana@example.com",
      "add sup@example.com",
      "disable joana@example.com",
      "enable joana@example.com",
      "reset-password joana@example.com",
      "end-sessions sup@example.com",
      "add sso@example.com",
      "add sso2@example.com",
      "unlink-idp sso@example.com",
    ]);
    for (const { actor } of changes) expect(actor).toMatch(/^cli:\S+$/);
    // A refused command changed nothing and recorded nothing.
    expect(trail.stdout).not.toContain("nobody@example.com");
  });
});

describe("agents CLI and the embedded database's single-process rule", () => {
  it("opens DATA_DIR itself when no app holds it, and releases it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-cli-"));
    expect(
      (
        await agentsCli(["add", "--email", "a@example.com", "--name", "A", "--password", "password123"], {
          DATA_DIR: dataDir,
        })
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
