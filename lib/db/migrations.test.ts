import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { describe, expect, it } from "vitest";
import { parseProtocol } from "@/lib/sales/protocol";

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
    const client = await PGlite.create();
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
    const client = await PGlite.create();
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
