import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isoDateIn } from "@/lib/format";
import { newProtocol } from "@/lib/sales/protocol";
import { testDatabases } from "@/test/databases";
import { insertIntegration, removeIntegrations, sellByIntegration } from "@/test/integration-sales";
import type { DatabaseHandle } from "../connection";
import { rowsOf } from "../rows";
import { sales, type SaleStatus } from "../schema";
import { insertAgent } from "./agents";
import { salesPerAgent, salesPerDay, salesPerIntegration } from "./dashboard";
import { countDaysIn } from "./sale-day-counts";

const ZONE = "America/Sao_Paulo";
const request = () => ({
  customerDocument: "52998224725",
  customerName: "Cliente",
  customerEmail: "c@example.com",
  customerPhone: "11987654321",
  planId: randomUUID(),
});
const STATUSES: SaleStatus[] = [
  "accepted",
  "accepted",
  "rejected",
  "failed",
  "unknown",
  "accepted",
  "pending",
];

describe.each(testDatabases)("the dashboard's numbers on $name", ({ open }) => {
  let handle: DatabaseHandle;
  // What was inserted, counted here as the test goes: [agent, day in São Paulo, status].
  const made: [string, string, SaleStatus][] = [];
  const agentIds: string[] = [];

  beforeAll(async () => {
    handle = await open();
    for (const name of ["Ana", "Bia", "Caio"]) {
      const agent = await insertAgent(handle.db, {
        email: `${name.toLowerCase()}@example.com`,
        name,
        role: "agent",
        passwordHash: null,
      });
      agentIds.push(agent.id);
    }
    // 60 sales every 7 hours from 2026-04-20 01:00 UTC: some fall before 03:00 UTC, the day before in São Paulo.
    for (let index = 0; index < 60; index++) {
      const instant = new Date(Date.UTC(2026, 3, 20, 1) + index * 7 * 3_600_000);
      const agentId = agentIds[index % 3]!;
      const status = STATUSES[index % STATUSES.length]!;
      await handle.db.insert(sales).values({
        submissionId: randomUUID(),
        protocol: newProtocol(),
        agentId,
        status,
        request: request(),
        createdAt: sql`${instant.toISOString()}::timestamptz`,
      });
      made.push([agentId, new Date(instant.getTime() - 3 * 3_600_000).toISOString().slice(0, 10), status]);
    }
  });
  afterAll(async () => {
    await handle.close();
  });

  const tally = (rows: { key: string; sales: number }[]) => {
    const counts: Record<string, number> = {};
    for (const row of rows) counts[row.key] = (counts[row.key] ?? 0) + row.sales;
    return counts;
  };

  it.each(["day counts", "ledger"])("counts each day's sales per status, from the %s", async (source) => {
    await countDaysIn(handle.db, source === "ledger" ? "UTC" : ZONE);
    const rows = await salesPerDay(handle.db, { from: "2026-04-22", timeZone: ZONE });
    const expected = tally(
      made
        .filter(([, day]) => day >= "2026-04-22")
        .map(([, day, status]) => ({ key: `${day} ${status}`, sales: 1 })),
    );
    expect(tally(rows.map((row) => ({ key: `${row.day} ${row.status}`, sales: row.sales })))).toEqual(
      expected,
    );
    await countDaysIn(handle.db, ZONE);
  });

  it("counts each agent's sales per status from a day on", async () => {
    const rows = await salesPerAgent(handle.db, { from: "2026-04-25", timeZone: ZONE });
    const expected = tally(
      made
        .filter(([, day]) => day >= "2026-04-25")
        .map(([agent, , status]) => ({ key: `${agent} ${status}`, sales: 1 })),
    );
    const counted = rows.flatMap((row) =>
      Object.entries(row.counts)
        .filter(([, sales]) => sales > 0)
        .map(([status, sales]) => ({ key: `${row.agentId} ${status}`, sales })),
    );
    expect(tally(counted)).toEqual(expected);
    expect(rows).toHaveLength(new Set(rows.map((row) => row.agentId)).size);
    expect(new Set(rows.map((row) => row.agentName))).toEqual(new Set(["Ana", "Bia", "Caio"]));
  });

  it("reads each agent's counts from the creation index alone", async () => {
    // The planner picks by size, and a test ledger is small: the plain scans are ruled out, so what is asserted is
    // that the index covers the query (it names every column the query reads), as it must at a million sales.
    const plan = await handle.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_bitmapscan = off`);
      const query = salesPerAgent(tx, { from: "2026-04-25", timeZone: ZONE });
      const rows = rowsOf<{ "QUERY PLAN": string }>(await tx.execute(sql`explain ${query.getSQL()}`));
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("Index Only Scan using sales_created_idx on sales");
  });

  describe("with an integration's sales, alone and on an agent's behalf", () => {
    // Made now, long after the sales above: counted from yesterday on, only these are.
    const from = () => isoDateIn(new Date(Date.now() - 86_400_000), ZONE);

    it("counts the one on an agent's behalf for the agent and both for the integration, and every sale by day", async () => {
      const [crm, erp] = [
        await insertIntegration(handle.db, "crm"),
        await insertIntegration(handle.db, "erp"),
      ];
      const ana = agentIds[0]!;
      try {
        await sellByIntegration(handle.db, { integrationId: crm.id, agentId: null, request: request() });
        await sellByIntegration(handle.db, {
          integrationId: crm.id,
          agentId: ana,
          request: request(),
          outcome: { status: "unknown", reason: "timeout" },
        });
        const counts = (status: SaleStatus, sales = 1) => ({ ...zero, [status]: sales });
        const zero = { pending: 0, accepted: 0, rejected: 0, failed: 0, unknown: 0 };

        expect(await salesPerAgent(handle.db, { from: from(), timeZone: ZONE })).toEqual([
          { agentId: ana, agentName: "Ana", agentEmail: "ana@example.com", counts: counts("unknown") },
        ]);
        // erp sold nothing: not listed.
        expect(await salesPerIntegration(handle.db, { from: from(), timeZone: ZONE })).toEqual([
          { integrationId: crm.id, integrationName: "crm", counts: { ...counts("accepted"), unknown: 1 } },
        ]);
        // The totals hold the integration's own sale too, from the day counts and from the ledger alike.
        for (const zone of [ZONE, "UTC"]) {
          await countDaysIn(handle.db, zone);
          const days = await salesPerDay(handle.db, { from: from(), timeZone: ZONE });
          expect(tally(days.map((row) => ({ key: row.status, sales: row.sales })))).toEqual({
            accepted: 1,
            unknown: 1,
          });
        }
        await countDaysIn(handle.db, ZONE);
      } finally {
        await removeIntegrations(handle.db, crm, erp);
      }
    });

    it("reads each integration's counts from its index alone", async () => {
      const plan = await handle.db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        await tx.execute(sql`set local enable_bitmapscan = off`);
        const query = salesPerIntegration(tx, { from: from(), timeZone: ZONE });
        const rows = rowsOf<{ "QUERY PLAN": string }>(await tx.execute(sql`explain ${query.getSQL()}`));
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });
      expect(plan).toContain("Index Only Scan using sales_integration_created_idx on sales");
    });
  });
});
