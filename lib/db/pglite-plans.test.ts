import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "./connection";

const pglite = testDatabases.find((database) => database.name === "PGlite")!;

describe("statements kept prepared on the embedded database", () => {
  let handle: DatabaseHandle;
  let client: PGlite;
  const kept = async () =>
    (
      await client.query<{ statement: string }>(
        "select statement from pg_prepared_statements where name like $1 order by prepare_time",
        ["partner_sales\\_%"],
      )
    ).rows.map((row) => row.statement);

  beforeAll(async () => {
    handle = await pglite.open();
    client = (handle.db as unknown as { $client: PGlite }).$client;
    await client.exec("create table plan_test (id int primary key, label text, at timestamptz)");
  });
  afterAll(() => handle.close());

  it("prepares a statement with parameters once and runs it by name after that, with the same answers", async () => {
    const insert = "insert into plan_test (id, label, at) values ($1, $2, $3) returning id, label";
    const first = await client.query(insert, [1, "um", new Date("2026-01-02T03:04:05Z")]);
    const second = await client.query(insert, [2, null, null]);
    expect(first.rows).toEqual([{ id: 1, label: "um" }]);
    expect(second.rows).toEqual([{ id: 2, label: null }]);
    expect(second.affectedRows).toBe(1);
    expect(second.fields).toEqual([
      { name: "id", dataTypeID: 23 },
      { name: "label", dataTypeID: 25 },
    ]);
    const select = "select id, at from plan_test where id = $1";
    for (let i = 0; i < 8; i++) {
      // Past the fifth run PostgreSQL may switch to a generic plan: the answer must not change.
      const { rows } = await client.query<{ id: number; at: Date }>(select, [1]);
      expect(rows).toEqual([{ id: 1, at: new Date("2026-01-02T03:04:05Z") }]);
    }
    const array = await client.query(select, [2], { rowMode: "array" });
    expect(array.rows).toEqual([[2, null]]);
    const update = await client.query("update plan_test set label = $1 where id > $2", ["x", 0]);
    expect(update.affectedRows).toBe(2);
    expect(await kept()).toEqual(expect.arrayContaining([insert, select]));
    expect((await kept()).filter((text) => text === select)).toHaveLength(1);
  });

  it("leaves statements without parameters to PGlite (they are most often run once)", async () => {
    const before = await kept();
    expect((await client.query("select count(*)::int as n from plan_test")).rows).toEqual([{ n: 2 }]);
    expect(await kept()).toEqual(before);
  });

  it("reports a failed statement as PGlite does, and the next statement runs", async () => {
    const insert = "insert into plan_test (id) values ($1)";
    await client.query(insert, [10]);
    const error = await client.query(insert, [10]).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "23505", query: insert, params: [10] });
    const parseError = await client.query("select nope from plan_test where id = $1", [1]).catch((e) => e);
    expect(parseError).toMatchObject({ code: "42703" });
    expect((await client.query("select id from plan_test where id = $1", [10])).rows).toEqual([{ id: 10 }]);
  });

  it("runs inside transactions: a failure aborts the transaction only, a commit keeps, a rollback undoes", async () => {
    const insert = "insert into plan_test (id, label) values ($1, $2)";
    await client.transaction(async (tx) => {
      await tx.query(insert, [20, "kept"]);
    });
    await client
      .transaction(async (tx) => {
        await tx.query(insert, [21, "undone"]);
        await tx.query(insert, [21, "twice"]);
      })
      .catch(() => undefined);
    const { rows } = await client.query<{ id: number }>(
      "select id from plan_test where id >= $1 order by id",
      [20],
    );
    expect(rows).toEqual([{ id: 20 }]);
    let leaked: Parameters<Parameters<PGlite["transaction"]>[0]>[0] | undefined;
    await client.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.query(insert, [22, "late"])).rejects.toThrow(/closed/);
  });

  it("answers many callers at once, each its own answer", async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => client.query<{ n: number }>("select $1::int * 2 as n", [i])),
    );
    expect(answers.map((answer) => answer.rows[0]!.n)).toEqual(Array.from({ length: 40 }, (_, i) => i * 2));
  });

  it("prepares a statement again when it was deallocated or its table changed shape", async () => {
    const select = "select * from plan_test where id = $1";
    expect((await client.query(select, [20])).rows).toEqual([{ id: 20, label: "kept", at: null }]);
    await client.exec("deallocate all");
    expect((await client.query(select, [20])).rows).toEqual([{ id: 20, label: "kept", at: null }]);
    await client.exec("alter table plan_test add column extra text default 'novo'");
    expect((await client.query(select, [20])).rows).toEqual([
      { id: 20, label: "kept", at: null, extra: "novo" },
    ]);
  });

  it("keeps a bounded number of statements, closing the oldest", async () => {
    for (let i = 0; i < 300; i++) await client.query(`select $1::int + ${i} as n`, [1]);
    const statements = await kept();
    expect(statements.length).toBeLessThanOrEqual(256);
    expect(statements).toContain("select $1::int + 299 as n");
    expect(statements).not.toContain("select $1::int + 0 as n");
  });
});
