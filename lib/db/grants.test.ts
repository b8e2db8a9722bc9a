import { randomUUID } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runRetention } from "@/lib/customers/retention";
import { log } from "@/lib/log";
import type { PartnerSaleRequestBody } from "@/lib/provider/types";
import { newProtocol } from "@/lib/sales/protocol";
import { createProviderClient } from "@/lib/provider";
import { submitSale } from "@/lib/sales/submit-sale";
import type { ValidSale } from "@/lib/validation/sale";
import { clientConfigFor, startSandbox, validSale, type RunningSandbox } from "@/sandbox/test-support";
import { queryOnce, runPsqlFile } from "@/scripts/test-postgres";
import { runTool } from "@/test/cli";
import { openDatabase, type DatabaseHandle } from "./connection";
import { insertAgent, setAgentDisabled } from "./queries/agents";
import { readChain, recordAuditEvent } from "./queries/audit-events";
import { createAgentWithIdentity, unlinkIdentities } from "./queries/identities";
import { rebuildSalesStatistics } from "./queries/customer-data";
import { settleUnknownSale } from "./queries/sales";
import { sales } from "./schema";
import { openTestSession, TEST_SESSION_LIMITS } from "@/test/sessions";
import { endAgentSessions, findSessionAgent } from "./queries/sessions";

const adminUrl = process.env.TEST_DATABASE_URL;
const ROLES_FILE = join(import.meta.dirname, "../../deploy/postgres/roles.sql");

/** A URL on the test server as `user` (the server trusts local connections: the password is not checked). */
function urlAs(user: string, database: string): string {
  const url = new URL(adminUrl!);
  url.username = user;
  url.password = "not-checked-here";
  url.pathname = `/${database}`;
  return url.href;
}

describe.skipIf(!adminUrl)("the app's own PostgreSQL role, as deploy/postgres/roles.sql makes it", () => {
  // Roles belong to the whole server: names of this run's own.
  const suffix = randomUUID().slice(0, 8);
  const names = {
    owner_role: `ps_owner_${suffix}`,
    app_role: `ps_app_${suffix}`,
    database: `ps_roles_${suffix}`,
  };
  const appUrl = () => urlAs(names.app_role, names.database);
  const ownerUrl = () => urlAs(names.owner_role, names.database);
  let handle: DatabaseHandle;
  let app: pg.Client;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    runPsqlFile(adminUrl!, ROLES_FILE, {
      ...names,
      owner_password: "owner-secret",
      app_password: "app-secret",
    });
    const warn = vi.spyOn(log, "warn");
    // As an instance starts with DATABASE_URL (the app's role) and DATABASE_MIGRATION_URL (the owner's).
    handle = await openDatabase({
      databaseUrl: appUrl(),
      migrationUrl: ownerUrl(),
      dataDir: "",
      role: "server",
    });
    expect(warn.mock.calls.map(([event]) => event)).not.toContain("db.app_role_owns_audit_trail");
    warn.mockRestore();
    app = new pg.Client({ connectionString: appUrl() });
    await app.connect();
    sandbox = await startSandbox();
    await recordAuditEvent(handle.db, {
      actor: "cli:test",
      door: "cli",
      action: "customer.found",
      details: {},
    });
  });

  afterAll(async () => {
    await app?.end();
    await handle?.close();
    await sandbox?.close();
    await queryOnce(adminUrl!, `drop database if exists ${names.database} with (force)`);
    await queryOnce(adminUrl!, `drop role if exists ${names.app_role}`);
    await queryOnce(adminUrl!, `drop role if exists ${names.owner_role}`);
  });

  it.each([
    [
      "disable the trail's triggers",
      "alter table audit_events disable trigger audit_events_no_change",
      /must be owner/,
    ],
    ["disable every trigger", "alter table audit_events disable trigger all", /must be owner/],
    ["drop a trigger", "drop trigger audit_events_chain on audit_events", /must be owner/],
    ["update a row", "update audit_events set reason = 'rewritten'", /permission denied/],
    ["delete a row", "delete from audit_events", /permission denied/],
    ["truncate the trail", "truncate audit_events", /permission denied/],
    [
      "replace the hash function",
      "create or replace function audit_event_hash() returns text language sql as $$ select '' $$",
      /permission denied|must be owner/,
    ],
    ["create a table", "create table stash (x int)", /permission denied/],
    ["rewrite the migrations' journal", "delete from drizzle.__drizzle_migrations", /permission denied/],
  ])("cannot %s", async (_case, statement, refusal) => {
    await expect(app.query(statement)).rejects.toThrow(refusal);
  });

  it("works as the app does: accounts, identities, sessions, sales, settlement, retention, the trail", async () => {
    const db = handle.db;
    const agent = await insertAgent(db, {
      email: "ana@example.com",
      name: "Ana",
      role: "agent",
      passwordHash: "x",
    });
    const supervisor = await createAgentWithIdentity(db, {
      key: { kind: "oidc", issuer: "https://idp.example", subject: "bia" },
      email: "bia@example.com",
      name: "Bia",
      role: "supervisor",
    });
    const sessionId = await openTestSession(db, agent);
    expect(
      await findSessionAgent(db, {
        agentId: agent.id,
        sessionId,
        now: new Date(),
        limits: TEST_SESSION_LIMITS,
      }),
    ).toBeDefined();

    const provider = createProviderClient(clientConfigFor(sandbox.url), {
      log: { info() {}, warn() {}, error() {} },
    });
    const submission = await submitSale(
      { db, provider, partnerSource: undefined },
      { agentId: agent.id, submissionId: randomUUID(), sale: validSale() as unknown as ValidSale },
    );
    expect(submission).toMatchObject({ kind: "recorded", sale: { status: "accepted" } });
    // Only an unknown sale is settled: this one is not, and nothing changes.
    expect(
      await settleUnknownSale(db, {
        submissionId: submission.kind === "recorded" ? submission.sale.submissionId : "",
        supervisor: { id: supervisor!.agent.id, door: "oidc:https://idp.example" },
        resolution: "registered",
      }),
    ).toBeUndefined();
    expect(
      await runRetention(db, { retentionDays: 365, actor: { actor: "retention", door: "system" } }),
    ).toMatchObject({
      ran: true,
    });
    await unlinkIdentities(db, {
      agentId: supervisor!.agent.id,
      kind: "oidc",
      now: new Date(),
      actor: { actor: "cli:test", door: "cli" },
    });
    await setAgentDisabled(db, "ana@example.com", true);
    expect(await endAgentSessions(db, agent.id, new Date(), "ended_by_operator")).toEqual([]);

    const trail = await readChain(db, 0, 100);
    expect(trail.map((row) => row.action)).toEqual([
      "customer.found",
      "agent.created",
      "agent.identity_unlinked",
    ]);
    // The operator's tools, as the app's role.
    const verified = await runTool("audit", ["verify"], { DATABASE_URL: appUrl() });
    expect(verified.stderr).toBe("");
    expect(verified.stdout).toContain("Audit trail intact: 3 rows");
  });

  it("rebuilds the ledger's planner statistics after an erasure, though it may not ANALYZE it itself", async () => {
    const agent = await insertAgent(handle.db, {
      email: "stats@example.com",
      name: "Stats",
      role: "agent",
      passwordHash: null,
    });
    const value = `CRM-${randomUUID()}`;
    await handle.db.insert(sales).values(
      Array.from({ length: 5 }, () => ({
        submissionId: randomUUID(),
        protocol: newProtocol(),
        agentId: agent.id,
        request: validSale({ externalId: value }) as unknown as PartnerSaleRequestBody,
      })),
    );
    // The statistics as the owner (or a superuser) reads them: the app's role may not read an index's.
    const held = async () =>
      JSON.stringify(await queryOnce(urlAs("postgres", names.database), "select * from pg_stats"));
    // PostgreSQL skips what the caller does not own, with a warning and no error.
    await app.query("analyze sales");
    expect(await held()).not.toContain(value);
    await rebuildSalesStatistics(handle.db);
    expect(await held()).toContain(value);
  });

  it("warns at start when the app's role owns the trail (no DATABASE_MIGRATION_URL)", async () => {
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    const asOwner = await openDatabase({ databaseUrl: ownerUrl(), dataDir: "", role: "server" });
    await asOwner.close();
    expect(warn.mock.calls.map(([event]) => event)).toContain("db.app_role_owns_audit_trail");
    warn.mockRestore();
  });
});
