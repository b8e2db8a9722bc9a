import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newProtocol } from "@/lib/sales/protocol";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "../connection";
import { sales, type SaleStatus } from "../schema";
import { insertAgent } from "./agents";
import { listSales, type SaleListFilter } from "./sales";

describe.each(testDatabases)("the sales history on $name", ({ open }) => {
  let handle: DatabaseHandle;
  let ana: string;
  let bia: string;

  beforeAll(async () => {
    handle = await open();
    ana = (
      await insertAgent(handle.db, { email: "a@example.com", name: "Ana", role: "agent", passwordHash: null })
    ).id;
    bia = (
      await insertAgent(handle.db, { email: "b@example.com", name: "Bia", role: "agent", passwordHash: null })
    ).id;
    // Whole runs of sales within one millisecond (microseconds apart, and the very same instant), where a page
    // boundary read back through a JavaScript Date would skip or repeat sales.
    const rows = Array.from({ length: 23 }, (_, index) => ({
      submissionId: randomUUID(),
      protocol: newProtocol(),
      agentId: index % 3 === 0 ? bia : ana,
      status: (index % 2 === 0 ? "accepted" : "unknown") as SaleStatus,
      request: {
        customerDocument: "52998224725",
        customerName: `Cliente ${index}`,
        customerEmail: "c@example.com",
        customerPhone: "11987654321",
        planId: randomUUID(),
      },
      createdAt: sql`timestamptz '2026-04-03 10:00:00.123+00' + ${index % 5} * interval '1 microsecond'`,
    }));
    await handle.db.insert(sales).values(rows);
  });
  afterAll(async () => {
    await handle.close();
  });

  async function everyPage(filter: SaleListFilter, limit: number) {
    const seen: string[] = [];
    for (let after: string | undefined; ;) {
      const page = await listSales(handle.db, { ...filter, limit, after });
      seen.push(...page.map((row) => row.submissionId));
      if (page.length < limit) return seen;
      after = page.at(-1)!.submissionId;
    }
  }

  it.each([
    ["everyone's", {}],
    ["one agent's", { agentId: () => ana }],
    ["one status", { status: "unknown" as const }],
  ])("reads %s sales page by page exactly as in one read, newest first", async (_, given) => {
    const filter: SaleListFilter = {
      agentId: "agentId" in given ? given.agentId() : undefined,
      status: "status" in given ? given.status : undefined,
    };
    const whole = await listSales(handle.db, { ...filter, limit: 1000 });
    expect(whole.length).toBeGreaterThan(5);
    for (const limit of [1, 2, 4, 7]) {
      expect(await everyPage(filter, limit)).toEqual(whole.map((row) => row.submissionId));
    }
    for (const [newer, older] of whole.slice(0, -1).map((row, index) => [row, whole[index + 1]!] as const)) {
      expect(newer.createdAt.getTime()).toBeGreaterThanOrEqual(older.createdAt.getTime());
    }
    if (filter.agentId) expect(whole.every((row) => row.agentName === "Ana")).toBe(true);
    if (filter.status) expect(whole.every((row) => row.status === filter.status)).toBe(true);
  });
});
