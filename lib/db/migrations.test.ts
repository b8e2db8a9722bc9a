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
