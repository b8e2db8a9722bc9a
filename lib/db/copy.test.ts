import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "./connection";
import { copyCsv, readingParameters } from "./copy";
import { sales } from "./schema";

describe("a statement for COPY, its parameters read from its transaction", () => {
  it("reads each parameter from the setting, once, as the type PostgreSQL gives it", () => {
    const read = (index: number, type: string) =>
      `(select (current_setting('partner_sales.copy_parameters')::jsonb ->> ${index})::${type})`;
    expect(readingParameters("select $1 where x = $2", ["text", "uuid"])).toBe(
      `select ${read(0, "text")} where x = ${read(1, "uuid")}`,
    );
    expect(readingParameters("select 1", [])).toBe("select 1");
  });

  it("refuses a `$` that is not a parameter", () => {
    expect(() => readingParameters("select '$1', $1", ["text"])).toThrow(/not a parameter/);
  });
});

describe.each(testDatabases)("COPY with parameters on $name", ({ open }) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  it("carries every value as it is, whatever quotes, backslashes or dollar quotes it holds", async () => {
    const tricky = ["a'b\\c", "x $v$ y", "ends in $v", "$v$ and $v0$", 'Zé 😀 ;"', "$1"];
    const id = randomUUID();
    const { csv, rows } = await copyCsv(
      handle.db,
      sql`select ${tricky[0]}, ${tricky[1]}, ${tricky[2]}, ${tricky[3]}, ${tricky[4]}, ${tricky[5]},
        ${2}::int + ${3}, ${"2026-04-03"}::date, ${id}::uuid = ${id}
        where not exists (select from ${sales} where ${sales.submissionId} = ${id}
          and ${sales.status} = ${"accepted"})`,
    );
    expect(rows).toBe(1);
    expect(new TextDecoder().decode(csv)).toBe(
      `a'b\\c;x $v$ y;ends in $v;$v$ and $v0$;"Zé 😀 ;""";$1;5;03/04/2026;t\n`,
    );
  });

  it("refuses what it cannot carry", async () => {
    await expect(copyCsv(handle.db, sql`select ${new Date(0)}`)).rejects.toThrow(TypeError);
    await expect(copyCsv(handle.db, sql`select ${Number.NaN}`)).rejects.toThrow(TypeError);
  });
});
