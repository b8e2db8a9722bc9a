import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { stringify } from "csv-stringify/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERASURE_LABELS, formatDateTime, maskCpf, STATUS_LABELS } from "@/lib/format";
import { saleSearch } from "@/lib/sales/history-search";
import { formatProtocol, newProtocol } from "@/lib/sales/protocol";
import { testDatabases } from "@/test/databases";
import { insertIntegration, removeIntegrations, sellByIntegration } from "@/test/integration-sales";
import type { DatabaseHandle } from "../connection";
import { agents, integrations, sales, type SaleStatus } from "../schema";
import { insertAgent } from "./agents";
import { countDaysIn } from "./sale-day-counts";
import {
  countHistoryByStatus,
  exportCsvBatch,
  listHistoryPage,
  type HistoryCriteria,
  type SaleListRow,
} from "./sales-history";

const ZONE = "America/Sao_Paulo";

function request(overrides: Record<string, string> = {}) {
  return {
    customerDocument: "52998224725",
    customerName: "Cliente Comum",
    customerEmail: "comum@example.com",
    customerPhone: "11987654321",
    planId: randomUUID(),
    ...overrides,
  };
}

describe.each(testDatabases)("the sales history on $name", ({ open }) => {
  let handle: DatabaseHandle;
  let ana: string;
  let bia: string;
  const special: Record<string, { submissionId: string; protocol: string }> = {};

  async function insertSale(values: {
    agentId: string | null;
    integrationId?: string;
    status?: SaleStatus;
    request?: Record<string, string>;
    createdAt?: ReturnType<typeof sql>;
  }) {
    const row = { submissionId: randomUUID(), protocol: newProtocol() };
    await handle.db.insert(sales).values({
      ...row,
      agentId: values.agentId,
      integrationId: values.integrationId,
      status: values.status ?? "accepted",
      request: request(values.request),
      ...(values.createdAt ? { createdAt: values.createdAt } : {}),
    });
    return row;
  }

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
    for (let index = 0; index < 23; index++) {
      await insertSale({
        agentId: index % 3 === 0 ? bia : ana,
        status: index % 2 === 0 ? "accepted" : "unknown",
        request: { customerName: `Cliente ${index}` },
        createdAt: sql`timestamptz '2026-04-03 10:00:00.123+00' + ${index % 5} * interval '1 microsecond'`,
      });
    }
    // Either side of midnight in São Paulo (UTC−3) between the 2nd and the 3rd of April.
    special.lateOnSecond = await insertSale({
      agentId: ana,
      createdAt: sql`timestamptz '2026-04-03 02:59:59.999999+00'`,
    });
    special.earlyOnThird = await insertSale({
      agentId: ana,
      createdAt: sql`timestamptz '2026-04-03 03:00:00+00'`,
    });
    special.joao = await insertSale({
      agentId: bia,
      status: "rejected",
      request: {
        customerName: "João Conceição Araújo",
        customerDocument: "11144477735",
        customerEmail: "joao.araujo@provedor.com.br",
        customerPhone: "2133334444",
        externalId: "CRM-100%",
      },
      createdAt: sql`timestamptz '2026-03-01 12:00:00+00'`,
    });
  });
  afterAll(async () => {
    await handle.close();
  });

  const criteria = (given: Partial<HistoryCriteria> = {}): HistoryCriteria => ({ timeZone: ZONE, ...given });

  async function everyPage(given: HistoryCriteria, limit: number) {
    const seen: string[] = [];
    for (let after: string | undefined; ;) {
      const page = await listHistoryPage(handle.db, given, {
        limit,
        cursor: after ? { direction: "older", submissionId: after } : undefined,
      });
      seen.push(...page.rows.map((row) => row.submissionId));
      if (!page.hasOlder) return seen;
      after = page.rows.at(-1)!.submissionId;
    }
  }

  async function everyPageBackwards(given: HistoryCriteria, limit: number, from: string) {
    const seen: string[] = [];
    for (let before = from; ;) {
      const page = await listHistoryPage(handle.db, given, {
        limit,
        cursor: { direction: "newer", submissionId: before },
      });
      seen.unshift(...page.rows.map((row) => row.submissionId));
      if (!page.hasNewer) return seen;
      before = page.rows[0]!.submissionId;
    }
  }

  it.each([
    ["everyone's", {}],
    ["one agent's", { agentId: () => ana }],
    ["one status", { status: "unknown" as const }],
  ])("reads %s sales page by page, both ways, exactly as in one read, newest first", async (_, given) => {
    const filter = criteria({
      agentId: "agentId" in given ? given.agentId() : undefined,
      status: "status" in given ? given.status : undefined,
    });
    const whole = (await listHistoryPage(handle.db, filter, { limit: 1000 })).rows;
    expect(whole.length).toBeGreaterThan(5);
    const ids = whole.map((row) => row.submissionId);
    for (const limit of [1, 2, 4, 7]) {
      expect(await everyPage(filter, limit)).toEqual(ids);
      expect(await everyPageBackwards(filter, limit, ids.at(-1)!)).toEqual(ids.slice(0, -1));
    }
    for (const [newer, older] of whole.slice(0, -1).map((row, index) => [row, whole[index + 1]!] as const)) {
      expect(newer.createdAt.getTime()).toBeGreaterThanOrEqual(older.createdAt.getTime());
    }
    if (filter.agentId) expect(whole.every((row) => row.agentName === "Ana")).toBe(true);
    if (filter.status) expect(whole.every((row) => row.status === filter.status)).toBe(true);
  });

  it("exports, batch by batch, exactly the sales the pages show, formatted as they are and safe in a spreadsheet", async () => {
    // A settled sale with values CSV must quote or neutralise, and values an inlined literal must carry as they
    // are: quotes, a backslash, dollar quotes, accents, an emoji; no externalId, an empty one.
    const tricky = [
      '=HYPERLINK("http://x")',
      "+55 11",
      "-Ana",
      "@SUM(A1)",
      "\tTab",
      "\rCR",
      "＝1+1",
      "a;b",
      "a\nb",
      "a\r\nb",
      'Zé "Aspas" \\ Ñandú 😀',
      "O'Brien $v$ $v0$ 100%_",
    ];
    const made: { submissionId: string }[] = [];
    // An agent's name is a cell too, in either column (the sale's agent, the supervisor who settled it).
    const caio = await insertAgent(handle.db, {
      email: "c@example.com",
      name: '=Caio; "C"',
      role: "supervisor",
      passwordHash: null,
    });
    // So is an integration's, which sells alone or on an agent's behalf. The API keys' CLI would not take this
    // name; the database does.
    const [api] = await handle.db.insert(integrations).values({ name: '-crm; "x"' }).returning();
    try {
      for (const [index, customerName] of tricky.entries()) {
        made.push(
          await insertSale({
            agentId: index % 5 === 4 ? null : index % 3 === 2 ? caio.id : index % 2 ? ana : bia,
            integrationId: index % 5 === 4 || index % 5 === 1 ? api!.id : undefined,
            status: "failed",
            request: {
              customerName,
              // The plan's id as configured, in another case, unknown to the configuration.
              planId: ["gold-1", "GOLD-1", "=outro", randomUUID()][index % 4]!,
              ...(index % 4 === 0 ? { externalId: "" } : index % 4 === 1 ? { externalId: "-7" } : {}),
            },
            createdAt: sql`timestamptz '2026-04-01 12:00:00.987654+00' + ${index} * interval '1 minute'`,
          }),
        );
      }
      await handle.db
        .update(sales)
        .set({
          settledBy: caio.id,
          resolution: "not-registered",
          settledAt: new Date("2026-04-02T09:30:00.250Z"),
          upstreamMessage: 'Timeout; "retry"',
        })
        .where(eq(sales.submissionId, made[0]!.submissionId));
      // Erased customers read as the reason their data is gone, in the pages and the file alike.
      for (const [index, reason] of [
        [1, "retention"],
        [2, "request"],
      ] as const) {
        await handle.db
          .update(sales)
          .set({ personalDataErasedAt: new Date(), personalDataErasure: reason })
          .where(eq(sales.submissionId, made[index]!.submissionId));
      }
      const names = { plans: [{ id: "gold-1", name: "=Plano; Ouro" }] };
      const shown = (row: SaleListRow) => [
        formatDateTime(row.createdAt, ZONE, "minutes"),
        formatProtocol(row.protocol),
        STATUS_LABELS[row.status],
        row.agentName ?? "",
        row.integrationName ?? "",
        row.personalDataErasure ? ERASURE_LABELS[row.personalDataErasure] : row.request.customerName,
        maskCpf(row.request.customerDocument),
        names.plans.find((plan) => plan.id === row.request.planId.toLowerCase())?.name ?? row.request.planId,
        row.request.externalId ?? "",
        row.upstreamMessage ?? "",
        row.settlerName ?? "",
        row.settledAt ? formatDateTime(row.settledAt, ZONE, "minutes") : "",
        // No evidence: a sale of a plan without an offer script (lib/sales/evidence-integrity.test.ts has one).
        ...["", "", "", ""],
      ];
      // COPY also quotes a cell holding a lone CR, which a spreadsheet would read as a line break.
      const spreadsheet = {
        delimiter: ";",
        record_delimiter: "unix",
        escape_formulas: true,
        quoted_match: /\r/,
      };
      const decoder = new TextDecoder();
      for (const filter of [
        criteria(),
        criteria({ agentId: ana }),
        criteria({ status: "failed" }),
        criteria({ search: saleSearch("cliente") }),
        criteria({ search: saleSearch("o'brien $v$ $v0$ 100%_") }),
      ]) {
        const pages = (await listHistoryPage(handle.db, filter, { limit: 1000 })).rows;
        expect(pages.length).toBeGreaterThan(0);
        const expected = stringify(pages.map(shown), spreadsheet);
        for (const limit of [1, 4, 1000]) {
          let exported = "";
          let rows = 0;
          for (let after: string | undefined, batches = 0; batches === 0 || after; batches++) {
            const batch = await exportCsvBatch(handle.db, filter, { limit, after, names });
            expect(batch.rows).toBeLessThanOrEqual(limit);
            exported += decoder.decode(batch.csv);
            rows += batch.rows;
            after = batch.last;
          }
          expect(rows).toBe(pages.length);
          expect(exported).toBe(expected);
        }
      }
    } finally {
      for (const { submissionId } of made)
        await handle.db.delete(sales).where(eq(sales.submissionId, submissionId));
      await handle.db.delete(agents).where(eq(agents.id, caio.id));
      await removeIntegrations(handle.db, api!);
    }
  });

  it("lists and exports an integration's sales, alone and on an agent's behalf, with who sold each", async () => {
    const crm = await insertIntegration(handle.db, "crm");
    try {
      const alone = await sellByIntegration(handle.db, {
        integrationId: crm.id,
        agentId: null,
        request: request({ customerName: "Cliente da Integração" }),
      });
      const onBehalf = await sellByIntegration(handle.db, {
        integrationId: crm.id,
        agentId: ana,
        request: request({ customerName: "Cliente em Nome da Ana" }),
        outcome: {
          status: "rejected",
          httpStatus: 409,
          message: "Customer already has this plan.",
          fields: [],
        },
      });
      const sellers = (rows: SaleListRow[]) =>
        rows
          .filter((row) => [alone.submissionId, onBehalf.submissionId].includes(row.submissionId))
          .map(({ agentName, integrationName, status }) => ({ agentName, integrationName, status }));

      const everyone = (await listHistoryPage(handle.db, criteria(), { limit: 1000 })).rows;
      expect(sellers(everyone)).toEqual([
        { agentName: "Ana", integrationName: "crm", status: "rejected" },
        { agentName: null, integrationName: "crm", status: "accepted" },
      ]);
      // Ana's own history holds the sale made for her, not the integration's own.
      const anas = (await listHistoryPage(handle.db, criteria({ agentId: ana }), { limit: 1000 })).rows;
      expect(sellers(anas)).toEqual([{ agentName: "Ana", integrationName: "crm", status: "rejected" }]);

      const cells = async (given: HistoryCriteria) => {
        const batch = await exportCsvBatch(handle.db, given, { limit: 1000, names: { plans: [] } });
        const lines = new TextDecoder().decode(batch.csv).trim().split("\n");
        return [alone, onBehalf].map((sale) =>
          lines
            .find((line) => line.includes(formatProtocol(sale.protocol)))
            ?.split(";")
            .slice(2, 6),
        );
      };
      expect(await cells(criteria())).toEqual([
        ["Aceita", "", "crm", "Cliente da Integração"],
        ["Recusada", "Ana", "crm", "Cliente em Nome da Ana"],
      ]);
      expect(await cells(criteria({ agentId: ana }))).toEqual([
        undefined,
        ["Recusada", "Ana", "crm", "Cliente em Nome da Ana"],
      ]);
    } finally {
      await removeIntegrations(handle.db, crm);
    }
  });

  it.each([
    ["days", () => ({ from: "2026-04-03", to: "2026-04-03" })],
    ["a CPF", () => ({ search: saleSearch("111.444.777-35") })],
    ["part of a name", () => ({ search: saleSearch("conceicao ara") })],
    ["a phone", () => ({ search: saleSearch("(21) 3333-4444") })],
    ["a protocol", () => ({ search: saleSearch(special.joao!.protocol) })],
    ["a submissionId", () => ({ search: saleSearch(special.joao!.submissionId) })],
    ["an agent, a status and days", () => ({ agentId: ana, status: "unknown" as const, to: "2026-04-03" })],
  ])("exports the sales the pages show under %s", async (_, given) => {
    const filter = criteria(given());
    const pages = (await listHistoryPage(handle.db, filter, { limit: 1000 })).rows;
    expect(pages.length).toBeGreaterThan(0);
    const batch = await exportCsvBatch(handle.db, filter, { limit: 1000, names: { plans: [] } });
    const protocols = new TextDecoder()
      .decode(batch.csv)
      .trim()
      .split("\n")
      .map((line) => line.split(";")[1]);
    expect(protocols).toEqual(pages.map((row) => formatProtocol(row.protocol)));
  });

  it("misses and repeats nothing while new sales arrive between pages", async () => {
    const first = await listHistoryPage(handle.db, criteria(), { limit: 10 });
    const arrived = await insertSale({ agentId: ana });
    const seen = [...first.rows.map((row) => row.submissionId)];
    for (let after = first.rows.at(-1)!.submissionId; ;) {
      const page = await listHistoryPage(handle.db, criteria(), {
        limit: 10,
        cursor: { direction: "older", submissionId: after },
      });
      seen.push(...page.rows.map((row) => row.submissionId));
      if (!page.hasOlder) break;
      after = page.rows.at(-1)!.submissionId;
    }
    const now = (await listHistoryPage(handle.db, criteria(), { limit: 1000 })).rows.map(
      (row) => row.submissionId,
    );
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(now.filter((id) => id !== arrived.submissionId));
    expect(now[0]).toBe(arrived.submissionId);
    await handle.db.delete(sales).where(eq(sales.submissionId, arrived.submissionId));
  });

  it("gives an empty page for a cursor that names no sale, or another agent's sale", async () => {
    const forged = await listHistoryPage(handle.db, criteria(), {
      limit: 10,
      cursor: { direction: "older", submissionId: randomUUID() },
    });
    expect(forged.rows).toEqual([]);
    const foreign = await listHistoryPage(handle.db, criteria({ agentId: ana }), {
      limit: 10,
      cursor: { direction: "older", submissionId: special.joao!.submissionId },
    });
    expect(foreign.rows).toEqual([]);
  });

  it("cuts days at midnight in APP_TIME_ZONE", async () => {
    const onThird = await listHistoryPage(handle.db, criteria({ from: "2026-04-03", to: "2026-04-03" }), {
      limit: 100,
    });
    const ids = onThird.rows.map((row) => row.submissionId);
    expect(ids).toContain(special.earlyOnThird!.submissionId);
    expect(ids).not.toContain(special.lateOnSecond!.submissionId);
    const onSecond = await listHistoryPage(handle.db, criteria({ to: "2026-04-02" }), { limit: 100 });
    expect(onSecond.rows.map((row) => row.submissionId)).toEqual([
      special.lateOnSecond!.submissionId,
      special.joao!.submissionId,
    ]);
  });

  it.each([
    ["a CPF with punctuation", "111.444.777-35"],
    ["a CPF without", "11144477735"],
    ["part of the name without its accents", "conceicao ara"],
    ["part of the name in capitals, accents and all", "JOÃO CONCEIÇÃO"],
    ["part of the e-mail", "araujo@provedor"],
    ["the phone as people write it", "(21) 3333-4444"],
    ["the partner's customer id", "CRM-100%"],
  ])("finds a sale by %s", async (_, typed) => {
    const found = await listHistoryPage(handle.db, criteria({ search: saleSearch(typed) }), { limit: 100 });
    expect(found.rows.map((row) => row.submissionId)).toEqual([special.joao!.submissionId]);
  });

  it("finds a sale by its protocol, grouped or not, and by its submissionId", async () => {
    const { protocol, submissionId } = special.joao!;
    for (const typed of [
      protocol,
      `${protocol.slice(0, 5)}-${protocol.slice(5)}`.toLowerCase(),
      submissionId,
    ]) {
      const found = await listHistoryPage(handle.db, criteria({ search: saleSearch(typed) }), { limit: 100 });
      expect(found.rows.map((row) => row.submissionId)).toEqual([submissionId]);
    }
  });

  it("takes percent signs, underscores and backslashes in a search as themselves", async () => {
    for (const typed of ["%%%", "___", "Cliente_1", "\\\\\\"]) {
      const found = await listHistoryPage(handle.db, criteria({ search: saleSearch(typed) }), { limit: 100 });
      expect(found.rows).toEqual([]);
    }
  });

  it("counts each status under the filter, from the day counts and from the ledger alike", async () => {
    const direct = async (given: Partial<HistoryCriteria>) => {
      const rows = (await listHistoryPage(handle.db, criteria(given), { limit: 1000 })).rows;
      const counts: Record<string, number> = {};
      for (const row of rows) counts[row.status] = (counts[row.status] ?? 0) + 1;
      return counts;
    };
    const nonZero = (counts: Record<string, number>) =>
      Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
    // A status moves (a supervisor settles a sale): the trigger moves its count.
    const [settled] = (await listHistoryPage(handle.db, criteria({ status: "unknown" }), { limit: 1 })).rows;
    await handle.db
      .update(sales)
      .set({ status: "accepted" })
      .where(eq(sales.submissionId, settled!.submissionId));

    for (const given of [
      {},
      { from: "2026-04-03" },
      { to: "2026-04-02" },
      { agentId: bia },
      { search: saleSearch("Cliente") },
      { status: "unknown" as const },
    ]) {
      const counts = await countHistoryByStatus(handle.db, criteria(given), { searchCap: 1000 });
      expect(nonZero(counts!)).toEqual(await direct({ ...given, status: undefined }));
    }

    // Another zone's days: recounted once, then kept by the trigger in that zone.
    const utc = criteria({ timeZone: "UTC", to: "2026-04-02" });
    expect(await countHistoryByStatus(handle.db, utc)).toMatchObject({ accepted: 0, rejected: 1 });
    expect(await countDaysIn(handle.db, "UTC")).toBe("recounted");
    expect(await countDaysIn(handle.db, "UTC")).toBe("unchanged");
    expect(nonZero((await countHistoryByStatus(handle.db, utc))!)).toEqual({ rejected: 1 });
    expect(
      nonZero((await countHistoryByStatus(handle.db, criteria({ timeZone: "UTC", from: "2026-04-03" })))!),
    ).toEqual(await direct({ from: "2026-04-03", timeZone: "UTC" }));
    await countDaysIn(handle.db, ZONE);
  });

  it("stops counting a search past its cap", async () => {
    const broad = criteria({ search: saleSearch("Cliente") });
    expect(await countHistoryByStatus(handle.db, broad, { searchCap: 5 })).toBeNull();
    const matches = (await listHistoryPage(handle.db, broad, { limit: 1000 })).rows.length;
    const counts = await countHistoryByStatus(handle.db, broad, { searchCap: matches });
    expect(Object.values(counts!).reduce((sum, count) => sum + count, 0)).toBe(matches);
    expect(await countHistoryByStatus(handle.db, broad, { searchCap: matches - 1 })).toBeNull();
  });
});
