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
