import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { createEmptyDatabase, queryOnce } from "@/scripts/test-postgres";
import { MIGRATION_LOCK_KEY, openDatabase, type DatabaseHandle } from "./connection";

const adminUrl = process.env.TEST_DATABASE_URL;
const MIGRATIONS = join(import.meta.dirname, "migrations");
const journal = JSON.parse(readFileSync(join(MIGRATIONS, "meta/_journal.json"), "utf8")) as {
  entries: { tag: string }[];
};
let counter = 0;

const emptyDatabase = () =>
  createEmptyDatabase(adminUrl!, `partner_sales_migrate_${process.pid}_${counter++}`);

/** The migrations folder as it stood after the first `count` migrations (an older release's database). */
function migrationsUpTo(count: number): string {
  const folder = mkdtempSync(join(tmpdir(), "partner-sales-migrations-"));
  cpSync(MIGRATIONS, folder, { recursive: true });
  const path = join(folder, "meta/_journal.json");
  writeFileSync(path, JSON.stringify({ ...journal, entries: journal.entries.slice(0, count) }));
  return folder;
}

async function appliedMigrations(url: string): Promise<number> {
  const [row] = await queryOnce<{ count: string }>(url, "select count(*) from drizzle.__drizzle_migrations");
  return Number(row!.count);
}

/** Another process holding the migration lock, on a connection of its own; ending it lets the lock go. */
async function holdMigrationLock(url: string): Promise<pg.Client> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  await holder.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_KEY.toString()]);
  return holder;
}

const open: DatabaseHandle[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((handle) => handle.close()));
  vi.restoreAllMocks();
});

/** `count` instances opening the same database at once, as processes started in the same second do. */
async function startTogether(url: string, count: number) {
  const info = vi.spyOn(log, "info").mockImplementation(() => {});
  const results = await Promise.allSettled(
    Array.from({ length: count }, () =>
      openDatabase({ databaseUrl: url, dataDir: "/nonexistent", role: "server" }),
    ),
  );
  for (const result of results) if (result.status === "fulfilled") open.push(result.value);
  const logged = (name: string) => info.mock.calls.filter(([event]) => event === name).length;
  const waited = logged("db.migrations_waiting");
  const gotThrough = logged("db.migrations_waited");
  info.mockRestore();
  return { failures: results.filter((result) => result.status === "rejected"), waited, gotThrough };
}

describe.skipIf(!adminUrl)("migrations started by several instances at once (PostgreSQL)", () => {
  it.each([1, 2, 3, 4, 5])(
    "round %i: four instances on an empty database all open it, migrated once",
    async () => {
      const url = await emptyDatabase();

      const { failures, waited, gotThrough } = await startTogether(url, 4);

      expect(failures).toEqual([]);
      expect(await appliedMigrations(url)).toBe(journal.entries.length);
      // Whether they met at the lock is up to the scheduler (the test below makes them meet); every one that
      // waited got the lock in the end.
      expect(gotThrough).toBe(waited);
    },
  );

  it("four instances that find the lock taken all wait for it, then migrate once between them", async () => {
    const url = await emptyDatabase();
    const holder = await holdMigrationLock(url);
    const info = vi.spyOn(log, "info").mockImplementation(() => {});
    const waiting = () => info.mock.calls.filter(([event]) => event === "db.migrations_waiting").length;

    const opening = Promise.allSettled(
      Array.from({ length: 4 }, () =>
        openDatabase({ databaseUrl: url, dataDir: "/nonexistent", role: "server" }),
      ),
    );
    // They did meet: each found the lock taken and said so.
    await vi.waitFor(() => expect(waiting()).toBe(4), { timeout: 10_000 });
    await holder.end();
    const results = await opening;
    for (const result of results) if (result.status === "fulfilled") open.push(result.value);

    expect(results.filter((result) => result.status === "rejected")).toEqual([]);
    expect(await appliedMigrations(url)).toBe(journal.entries.length);
  });

  it("four instances of a new release on an older database add only the new migrations, once", async () => {
    const url = await emptyDatabase();
    const older = new pg.Pool({ connectionString: url });
    await migrate(drizzle(older), { migrationsFolder: migrationsUpTo(8) });
    await older.end();
    expect(await appliedMigrations(url)).toBe(8);

    const { failures } = await startTogether(url, 4);

    expect(failures).toEqual([]);
    expect(await appliedMigrations(url)).toBe(journal.entries.length);
  });

  it("an instance waits while another process holds the lock, and migrates once it is let go", async () => {
    const url = await emptyDatabase();
    const holder = await holdMigrationLock(url);
    const info = vi.spyOn(log, "info").mockImplementation(() => {});

    const opening = openDatabase({ databaseUrl: url, dataDir: "/nonexistent", role: "server" });
    await vi.waitFor(() =>
      expect(info.mock.calls.map(([event]) => event)).toContain("db.migrations_waiting"),
    );
    expect(await appliedMigrations(url).catch(() => 0)).toBe(0);
    // The holder dies (its connection closes) without unlocking: the lock goes with it.
    await holder.end();
    open.push(await opening);

    expect(await appliedMigrations(url)).toBe(journal.entries.length);
    expect(info.mock.calls.map(([event]) => event)).toContain("db.migrations_waited");
  });

  it("says it is still waiting at every step, and gives up naming the lock when it is never let go", async () => {
    const url = await emptyDatabase();
    const holder = await holdMigrationLock(url);
    vi.spyOn(log, "info").mockImplementation(() => {});
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    try {
      await expect(
        openDatabase({
          databaseUrl: url,
          dataDir: "/nonexistent",
          role: "server",
          migrationLockWait: { stepMs: 100, steps: 3 },
        }),
      ).rejects.toThrow(/held the migration lock for 0 s \(advisory lock \d+ in pg_locks\)/);
      expect(warn.mock.calls.filter(([event]) => event === "db.migrations_still_waiting")).toHaveLength(2);
      expect(await appliedMigrations(url).catch(() => 0)).toBe(0);
    } finally {
      await holder.end();
    }
  });
});
