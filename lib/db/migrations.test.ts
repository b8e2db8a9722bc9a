import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { describe, expect, it } from "vitest";
import { parseProtocol } from "@/lib/sales/protocol";
import { PGLITE_EXTENSIONS } from "./pglite-extensions";

const MIGRATIONS = join(import.meta.dirname, "migrations");

/** The migrations folder as it stood after the first `count` migrations. */
function migrationsUpTo(count: number): string {
  const folder = mkdtempSync(join(tmpdir(), "partner-sales-migrations-"));
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalPath = join(folder, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, count) }));
  return folder;
}

describe("migration 0006 (sale protocols)", () => {
  it("gives every sale recorded before it a valid, distinct protocol, and drops its generator", async () => {
    const client = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsUpTo(6) });
    await client.exec(`
      insert into agents (email, name) values ('a@example.com', 'Ana');
      insert into sales (submission_id, agent_id, request)
        select gen_random_uuid(), (select id from agents), '{}'::jsonb from generate_series(1, 500);
    `);

    await migrate(db, { migrationsFolder: MIGRATIONS });

    const { rows } = await client.query<{ protocol: string }>("select protocol from sales");
    expect(rows).toHaveLength(500);
    expect(rows.filter(({ protocol }) => parseProtocol(protocol) === protocol)).toHaveLength(500);
    expect(new Set(rows.map(({ protocol }) => protocol)).size).toBe(500);
    const generator = await client.query("select 1 from pg_proc where proname = 'backfill_sale_protocol'");
    expect(generator.rows).toHaveLength(0);
    await client.close();
  });
});

describe("migration 0007 (settlements beside the provider's answer)", () => {
  it("moves each earlier settlement to `resolution` and gives outcome_detail back what can be known", async () => {
    const client = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsUpTo(7) });
    await client.exec(`
      insert into agents (email, name, role) values ('a@example.com', 'Ana', 'agent'), ('s@example.com', 'Sol', 'supervisor');
      insert into sales (submission_id, protocol, agent_id, request, status, upstream_status, outcome_detail, resolved_by, resolved_at)
      select id::uuid, protocol, (select id from agents where name = 'Ana'), '{}'::jsonb, status::sale_status,
             upstream_status, outcome_detail, case when settled then (select id from agents where name = 'Sol') end,
             case when settled then now() end
      from (values
        ('00000000-0000-4000-8000-000000000001', 'P1', 'accepted', 503, 'confirmed-registered', true),
        ('00000000-0000-4000-8000-000000000002', 'P2', 'failed', 200, 'confirmed-not-registered', true),
        ('00000000-0000-4000-8000-000000000003', 'P3', 'failed', null, 'confirmed-not-registered', true),
        -- Settled "not registered", then sent again by the agent and accepted: the send cleared outcome_detail.
        ('00000000-0000-4000-8000-000000000004', 'P4', 'accepted', 200, null, true),
        ('00000000-0000-4000-8000-000000000005', 'P5', 'unknown', null, 'timeout', false),
        ('00000000-0000-4000-8000-000000000006', 'P6', 'failed', null, 'partner_api.unreachable', false)
      ) as earlier (id, protocol, status, upstream_status, outcome_detail, settled);
    `);

    await migrate(db, { migrationsFolder: MIGRATIONS });

    const { rows } = await client.query<{
      protocol: string;
      outcome_detail: string | null;
      resolution: string | null;
    }>("select protocol, outcome_detail, resolution from sales order by protocol");
    expect(rows).toEqual([
      { protocol: "P1", outcome_detail: "server-error", resolution: "registered" },
      { protocol: "P2", outcome_detail: "malformed-answer", resolution: "not-registered" },
      { protocol: "P3", outcome_detail: null, resolution: "not-registered" },
      { protocol: "P4", outcome_detail: null, resolution: "not-registered" },
      { protocol: "P5", outcome_detail: "timeout", resolution: null },
      { protocol: "P6", outcome_detail: "partner_api.unreachable", resolution: null },
    ]);
    await expect(client.query("update sales set resolved_at = null where protocol = 'P1'")).rejects.toThrow(
      /sales_resolution_when_resolved/,
    );
    await client.close();
  });
});

describe("migrations 0010 and 0011 (the history's search and counts)", () => {
  it("fold the names and count the days of every sale recorded before them", async () => {
    const client = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsUpTo(10) });
    await client.exec(`
      insert into agents (email, name) values ('a@example.com', 'Ana');
      insert into sales (submission_id, protocol, agent_id, request, status, created_at)
      select gen_random_uuid(), 'P' || n, (select id from agents),
             jsonb_build_object('customerName', 'JOÃO Conceição ' || n), status::sale_status, created::timestamptz
      from (values
        (1, 'accepted', '2026-04-03 02:59:59+00'),
        (2, 'accepted', '2026-04-03 03:00:00+00'),
        (3, 'unknown', '2026-04-03 12:00:00+00')
      ) as earlier (n, status, created);
    `);

    await migrate(db, { migrationsFolder: MIGRATIONS });

    const names = await client.query<{ customer_name_folded: string }>(
      "select customer_name_folded from sales order by protocol",
    );
    expect(names.rows.map((row) => row.customer_name_folded)).toEqual([
      "joao conceicao 1",
      "joao conceicao 2",
      "joao conceicao 3",
    ]);
    const counts = await client.query<{ day: string; status: string; sales: number }>(
      "select day::text, status, sales from sale_day_counts order by day, status",
    );
    expect(counts.rows).toEqual([
      { day: "2026-04-02", status: "accepted", sales: 1 },
      { day: "2026-04-03", status: "accepted", sales: 1 },
      { day: "2026-04-03", status: "unknown", sales: 1 },
    ]);
    // From then on the trigger keeps them: a settled sale moves from one count to the other.
    await client.exec("update sales set status = 'accepted' where protocol = 'P3'");
    const moved = await client.query<{ status: string; sales: number }>(
      "select status, sales from sale_day_counts where day = '2026-04-03' order by status",
    );
    expect(moved.rows).toEqual([
      { status: "accepted", sales: 2 },
      { status: "unknown", sales: 0 },
    ]);
    await client.close();
  });
});

describe("migration 0013 (identities apart from accounts, the trail as a chain)", () => {
  it("records every identity, names the ones to review, moves the IdP's role off the account, and chains the trail", async () => {
    const client = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsUpTo(13) });
    await client.exec(`
      -- Created by the IdP (the identity in the same transaction), and one the IdP took over by its e-mail later.
      insert into agents (id, email, name, role, created_at, updated_at) values
        ('00000000-0000-4000-8000-00000000000a', 'idp@x.example', 'Idp', 'supervisor', '2026-01-01', '2026-01-01'),
        ('00000000-0000-4000-8000-00000000000b', 'taken@x.example', 'Taken', 'supervisor', '2026-01-01', '2026-01-01');
      update agents set password_hash = 'x' where email = 'taken@x.example';
      insert into oidc_identities (issuer, subject, agent_id, created_at) values
        ('https://idp.example', 'a', '00000000-0000-4000-8000-00000000000a', '2026-01-01'),
        ('https://idp.example', 'b', '00000000-0000-4000-8000-00000000000b', '2026-03-01');
      -- Created by a portal (never changed since), one a portal took by e-mail (changed when it was), a legacy one.
      insert into agents (email, name, external_issuer, external_subject, created_at, updated_at) values
        ('portal@x.example', 'Portal', 'https://crm.example', 'p1', '2026-02-01', '2026-02-01'),
        ('linked@x.example', 'Linked', 'https://crm.example', 'p2', '2026-02-01', '2026-02-05'),
        ('legacy@x.example', 'Legacy', null, 'p3', '2026-02-01', '2026-02-01');
      insert into sessions (agent_id, method, created_at, last_seen_at)
        select id, 'password', now(), now() from agents where email = 'taken@x.example';
      insert into audit_events (action, actor, details) values ('agent.changed', 'cli:root', '{"command": "add"}');
    `);

    await migrate(db, { migrationsFolder: MIGRATIONS });

    const identities = await client.query<{
      email: string;
      door: string;
      linked_by: string;
      role: string | null;
    }>(`
      select a.email, i.kind || ':' || i.issuer as door, i.linked_by, i.role
      from agent_identities i join agents a on a.id = i.agent_id order by a.email`);
    expect(identities.rows).toEqual([
      { email: "idp@x.example", door: "oidc:https://idp.example", linked_by: "sign_in", role: "supervisor" },
      { email: "legacy@x.example", door: "portal:", linked_by: "migration", role: "agent" },
      {
        email: "linked@x.example",
        door: "portal:https://crm.example",
        linked_by: "migration",
        role: "agent",
      },
      { email: "portal@x.example", door: "portal:https://crm.example", linked_by: "sign_in", role: "agent" },
      {
        email: "taken@x.example",
        door: "oidc:https://idp.example",
        linked_by: "migration",
        role: "supervisor",
      },
    ]);
    // The IdP's role went to its identity: the accounts' own (their passwords') are agents' until an operator says.
    const roles = await client.query<{ email: string; role: string }>(
      "select email, role from agents where email in ('idp@x.example', 'taken@x.example') order by email",
    );
    expect(roles.rows.map((row) => row.role)).toEqual(["agent", "agent"]);
    const sessions = await client.query<{ ended: boolean; end_reason: string; door: string }>(
      "select ended_at is not null as ended, end_reason, door from sessions",
    );
    expect(sessions.rows).toEqual([{ ended: true, end_reason: "upgrade", door: "password" }]);

    const trail = await client.query<{ seq: number; actor: string; details: Record<string, unknown> }>(
      "select seq, actor, details from audit_events order by seq",
    );
    expect(trail.rows).toEqual([
      { seq: 1, actor: "cli:root", details: { command: "add" } },
      {
        seq: 2,
        actor: "system",
        details: {
          migration: "0013_identities_and_accountability",
          identitiesToReview: 3,
          rolesMovedToTheIdp: [
            "00000000-0000-4000-8000-00000000000a",
            "00000000-0000-4000-8000-00000000000b",
          ],
          sessionsEnded: 1,
        },
      },
    ]);
    await client.close();
  });
});

describe("migration 0024 (unlogged request budgets)", () => {
  it("keeps the budgets' rows and makes only that table unlogged", async () => {
    const client = new PGlite({ extensions: PGLITE_EXTENSIONS });
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsUpTo(24) });
    await client.query(
      "insert into request_budgets (key, window_started_at, used) values ('sales:a', now(), 3)",
    );
    await migrate(db, { migrationsFolder: MIGRATIONS });
    const budgets = await client.query<{ used: number }>("select used from request_budgets");
    expect(budgets.rows).toEqual([{ used: 3 }]);
    const unlogged = await client.query<{ relname: string }>(
      "select relname from pg_class where relkind = 'r' and relpersistence = 'u' order by relname",
    );
    expect(unlogged.rows.map((row) => row.relname)).toEqual(["request_budgets"]);
    await client.close();
  });
});
