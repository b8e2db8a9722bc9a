import type { PGlite } from "@electric-sql/pglite";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validSale } from "@/sandbox/test-support";
import { openTestSession, TEST_SESSION_LIMITS } from "@/test/sessions";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "./connection";
import { keepPlanOf } from "./pglite-plans";
import { insertAgent } from "./queries/agents";
import { claimSubmission, recordOutcome } from "./queries/sales";
import { findSessionAgentSpending } from "./queries/sessions";

const pglite = testDatabases.find((database) => database.name === "PGlite")!;

/** A statement marked to be kept, as lib/db/prepared.ts marks the app's. */
const kept_ = (text: string) => {
  keepPlanOf(text);
  return text;
};

describe("statements kept prepared on the embedded database", () => {
  let handle: DatabaseHandle;
  let client: PGlite;
  const kept = async () =>
    (
      await client.query<{ statement: string }>(
        "select statement from pg_prepared_statements where name ~ $1 order by prepare_time",
        ["^partner_sales_[0-9]+$"],
      )
    ).rows.map((row) => row.statement);

  beforeAll(async () => {
    handle = await pglite.open();
    client = (handle.db as unknown as { $client: PGlite }).$client;
    await client.exec("create table plan_test (id int primary key, label text, at timestamptz)");
  });
  afterAll(() => handle.close());

  it("prepares a marked statement once and runs it by name after that, with the same answers", async () => {
    const insert = kept_("insert into plan_test (id, label, at) values ($1, $2, $3) returning id, label");
    const first = await client.query(insert, [1, "um", new Date("2026-01-02T03:04:05Z")]);
    const second = await client.query(insert, [2, null, undefined]);
    expect(first.rows).toEqual([{ id: 1, label: "um" }]);
    expect(second.rows).toEqual([{ id: 2, label: null }]);
    expect(second.affectedRows).toBe(1);
    expect(second.fields).toEqual([
      { name: "id", dataTypeID: 23 },
      { name: "label", dataTypeID: 25 },
    ]);
    const select = kept_("select id, at from plan_test where id = $1");
    for (let i = 0; i < 8; i++) {
      const { rows } = await client.query<{ id: number; at: Date }>(select, [1]);
      expect(rows).toEqual([{ id: 1, at: new Date("2026-01-02T03:04:05Z") }]);
    }
    // Past the fifth run PostgreSQL has settled on one generic plan, and the answer did not change.
    const { rows: plans } = await client.query<{ generic: number }>(
      "select generic_plans::int as generic from pg_prepared_statements where statement = $1",
      [select],
    );
    expect(plans).toEqual([{ generic: expect.any(Number) }]);
    expect(plans[0]!.generic).toBeGreaterThan(0);
    const array = await client.query(select, [2], { rowMode: "array" });
    expect(array.rows).toEqual([[2, null]]);
    const update = await client.query(kept_("update plan_test set label = $1 where id > $2"), ["x", 0]);
    expect(update.affectedRows).toBe(2);
    expect(await kept()).toEqual(expect.arrayContaining([insert, select]));
    expect((await kept()).filter((text) => text === select)).toHaveLength(1);
  });

  it("leaves every statement not marked to PGlite's own path", async () => {
    const before = await kept();
    expect((await client.query("select label from plan_test where id = $1", [1])).rows).toEqual([
      { label: "x" },
    ]);
    expect((await client.query("select count(*)::int as n from plan_test")).rows).toEqual([{ n: 2 }]);
    expect(await kept()).toEqual(before);
  });

  it("serializes each value for its parameter's type, bytes and declared types included", async () => {
    const bytes = kept_("select $1::bytea as b, octet_length($1::bytea) as n");
    const { rows } = await client.query<{ b: Uint8Array; n: number }>(bytes, [new Uint8Array([0, 1, 255])]);
    expect([...rows[0]!.b]).toEqual([0, 1, 255]);
    expect(rows[0]!.n).toBe(3);
    const typed = kept_("select $1 as v");
    expect((await client.query(typed, ["7"], { paramTypes: [23] })).rows).toEqual([{ v: 7 }]);
    expect((await client.query(typed, ["7"], { paramTypes: [25] })).rows).toEqual([{ v: "7" }]);
    await client.exec(
      "create function plan_notice(m text) returns int language plpgsql as $$ begin raise notice '%', m; return 1; end $$",
    );
    const notices: string[] = [];
    await client.query(kept_("select plan_notice($1)"), ["olá"], {
      onNotice: (notice) => notices.push(notice.message ?? ""),
    });
    expect(notices).toEqual(["olá"]);
  });

  it("reports a failed statement as PGlite does, and the next statement runs", async () => {
    const insert = kept_("insert into plan_test (id) values ($1)");
    await client.query(insert, [10]);
    const error = await client.query(insert, [10]).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "23505", query: insert, params: [10] });
    const parseError = await client
      .query(kept_("select nope from plan_test where id = $1"), [1])
      .catch((caught: unknown) => caught);
    expect(parseError).toMatchObject({ code: "42703" });
    expect((await client.query(kept_("select id from plan_test where id = $1"), [10])).rows).toEqual([
      { id: 10 },
    ]);
  });

  it("runs inside transactions: a failure aborts the transaction only, a commit keeps, a rollback undoes", async () => {
    const insert = kept_("insert into plan_test (id, label) values ($1, $2)");
    await client.transaction(async (tx) => {
      await tx.query(insert, [20, "kept"]);
    });
    const aborted = await client
      .transaction(async (tx) => {
        await tx.query(insert, [21, "undone"]);
        await tx.query(insert, [21, "twice"]).catch(() => undefined);
        await tx.query(insert, [22, "after the failure"]);
      })
      .catch((caught: unknown) => caught);
    expect(aborted).toMatchObject({ code: "25P02" });
    const { rows } = await client.query<{ id: number }>(
      kept_("select id from plan_test where id >= $1 order by id"),
      [20],
    );
    expect(rows).toEqual([{ id: 20 }]);
    let leaked: Parameters<Parameters<PGlite["transaction"]>[0]>[0] | undefined;
    await client.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.query(insert, [23, "late"])).rejects.toThrow(/closed/);
  });

  it("prepares a statement again when it was deallocated or its table changed shape", async () => {
    const select = kept_("select * from plan_test where id = $1");
    expect((await client.query(select, [20])).rows).toEqual([{ id: 20, label: "kept", at: null }]);
    await client.exec("deallocate all");
    expect((await client.query(select, [20])).rows).toEqual([{ id: 20, label: "kept", at: null }]);
    await client.exec("alter table plan_test add column extra text default 'novo'");
    expect((await client.query(select, [20])).rows).toEqual([
      { id: 20, label: "kept", at: null, extra: "novo" },
    ]);
    expect((await kept()).filter((text) => text === select)).toHaveLength(1);
  });

  it("inside a transaction, fails that transaction once when every statement was deallocated, not once each", async () => {
    const first = kept_("select label from plan_test where id = $1 and $2::int = 1");
    const second = kept_("select label from plan_test where id = $1 and $2::int = 2");
    await client.query(first, [20, 1]);
    await client.query(second, [20, 2]);
    await client.exec("deallocate all");
    const failed = await client
      .transaction((tx) => tx.query(first, [20, 1]))
      .catch((caught: unknown) => caught);
    expect(failed).toMatchObject({ code: "26000" });
    const both = await client.transaction(async (tx) => [
      (await tx.query(first, [20, 1])).rows,
      (await tx.query(second, [20, 2])).rows,
    ]);
    expect(both).toEqual([[{ label: "kept" }], [{ label: "kept" }]]);
  });

  it("keeps a bounded number of statements, closing the least recently used", async () => {
    const hot = kept_("select $1::int + 1000 as n");
    for (let i = 0; i < 300; i++) {
      await client.query(kept_(`select $1::int + ${i} as n`), [1]);
      if (i % 50 === 0) await client.query(hot, [1]);
    }
    const statements = await kept();
    expect(statements.length).toBeLessThanOrEqual(256);
    expect(statements).toContain("select $1::int + 299 as n");
    expect(statements).toContain(hot);
    expect(statements).not.toContain("select $1::int + 0 as n");
  });

  it("keeps the sale's own statements (lib/db/prepared.ts marks them), and only while they are used", async () => {
    const before = await kept();
    const agent = await insertAgent(handle.db, {
      email: "plans@x.example",
      name: "Ana",
      role: "agent",
      passwordHash: "x",
    });
    const now = new Date();
    const sessionId = await openTestSession(handle.db, agent, { userAgent: "test", now });
    for (let i = 0; i < 2; i++) {
      const checked = await findSessionAgentSpending(handle.db, {
        agentId: agent.id,
        sessionId,
        now,
        limits: TEST_SESSION_LIMITS,
        budgetKey: `sales:${agent.id}`,
        policy: { limit: 100, windowMs: 60_000 },
      });
      expect(checked?.agent.id).toBe(agent.id);
      const submissionId = randomUUID();
      await claimSubmission(handle.db, { submissionId, agentId: agent.id, request: validSale() as never });
      await recordOutcome(handle.db, submissionId, { status: "accepted", httpStatus: 200, message: "ok" });
    }
    const added = (await kept()).filter((text) => !before.includes(text));
    expect(added.some((text) => /^with "seen"/.test(text))).toBe(true);
    expect(added.some((text) => /^insert into "sales"/.test(text))).toBe(true);
    expect(added.some((text) => /^update "sales"/.test(text))).toBe(true);
  });
});
