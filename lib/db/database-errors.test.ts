import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/bench/lib/processes";
import { metrics } from "@/lib/metrics";
import { testDatabases } from "@/test/databases";
import { openDatabase, type DatabaseHandle } from "./connection";

const postgres = testDatabases.find((database) => database.name === "PostgreSQL");

async function errors(sqlStateClass: string): Promise<number> {
  const metric = await metrics().registry.getSingleMetric("partner_sales_database_errors_total")!.get();
  return metric.values.find((entry) => entry.labels.class === sqlStateClass)?.value ?? 0;
}

describe.skipIf(!postgres)("PostgreSQL errors in the metrics", () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await postgres!.open();
  });
  afterAll(() => handle?.close());

  it("counts a failed query, in a transaction or not, by its SQLSTATE class; the caller still gets the error", async () => {
    const was = await errors("42");

    await expect(handle.db.execute(sql`select * from no_such_table`)).rejects.toThrow();
    await expect(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`select no_such_column from sales`);
      }),
    ).rejects.toThrow();

    expect(await errors("42")).toBe(was + 2);
    // The pool still works.
    expect(await handle.db.execute(sql`select 1 as one`)).toMatchObject({ rows: [{ one: 1 }] });
  });

  it("counts a connection that cannot be made", async () => {
    const was = await errors("connection");
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.port = String(await freePort());

    await expect(
      openDatabase({ databaseUrl: url.href, dataDir: "/nonexistent", role: "server" }),
    ).rejects.toThrow();

    expect(await errors("connection")).toBeGreaterThan(was);
  });
});
