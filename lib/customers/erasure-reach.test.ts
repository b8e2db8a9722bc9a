import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import { insertAgent } from "@/lib/db/queries/agents";
import { exportCsvBatch } from "@/lib/db/queries/sales-history";
import { rowsOf } from "@/lib/db/rows";
import { sales } from "@/lib/db/schema";
import type { PartnerSaleRequestBody } from "@/lib/provider/types";
import { saleSearch } from "@/lib/sales/history-search";
import { newProtocol } from "@/lib/sales/protocol";
import { cpfCheckDigits } from "@/lib/validation/cpf";
import { runTool } from "@/test/cli";
import { testDatabases } from "@/test/databases";
import { runRetention } from "./retention";

const DAY = 86_400_000;
/** Sales of the customer to erase: enough among the others that ANALYZE counts their values as common. */
const MARKED_SALES = 8;
const OTHER_SALES = 30;

let customers = 0;
/** A customer whose every personal value is found nowhere else (lower case, as the folded name is stored). */
function customer(tag: string, birthDate?: string): PartnerSaleRequestBody {
  const n = String(++customers).padStart(3, "0");
  const base = `7${n}${String(Date.now()).slice(-5)}`;
  return {
    customerDocument: `${base}${cpfCheckDigits(base)}`,
    customerName: `Zefirina Quixabeira ${tag}${n}`,
    customerEmail: `zefirina.${tag}${n}@example.com`,
    customerPhone: `1198${String(Date.now()).slice(-4)}${n}`,
    ...(birthDate ? { birthDate } : {}),
    planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
    externalId: `CRM-${tag}`,
  };
}

const markers = (request: PartnerSaleRequestBody) =>
  [
    request.customerDocument,
    request.customerName,
    request.customerEmail,
    request.customerPhone,
    request.birthDate!,
  ].map((value) => value.toLowerCase());

describe.each(testDatabases)("what an erasure leaves behind on $name", ({ open }) => {
  let handle: DatabaseHandle & { databaseUrl?: string; dataDir: string };
  let agentId: string;
  /** PostgreSQL with pg_stat_statements loaded (scripts/test-postgres.ts loads it where it is installed). */
  let statementsKept = false;

  const text = async (query: ReturnType<typeof sql>) =>
    rowsOf<{ text: string | null }>(await handle.db.execute(query))
      .map((row) => row.text ?? "")
      .join("\n")
      .toLowerCase();

  /** Every row of every table, as the database prints it. */
  const tables = async () => {
    const names = rowsOf<{ name: string }>(
      await handle.db.execute(sql`
        select format('%I.%I', n.nspname, c.relname) as name from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'm', 'p') and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')`),
    ).map((row) => row.name);
    expect(names).toContain("public.sales");
    const each = await Promise.all(
      names.map((name) => text(sql`select string_agg(t::text, E'\n') as text from ${sql.raw(name)} t`)),
    );
    return each.join("\n");
  };
  /** The planner's statistics: every column and expression index (their own rows), and extended ones. */
  const statistics = () =>
    text(sql`
      select string_agg(s::text, E'\n') as text from pg_stats s
      union all select string_agg(s::text, E'\n') from pg_stats_ext s
      union all select string_agg(s::text, E'\n') from pg_stats_ext_exprs s`);
  /** What pg_stat_statements keeps of this database's statements. */
  const statements = () =>
    text(sql`
      select string_agg(query, E'\n') as text from pg_stat_statements
      where dbid = (select oid from pg_database where datname = current_database())`);

  async function insertSales(request: PartnerSaleRequestBody, count: number, createdAt: Date) {
    const rows = Array.from({ length: count }, () => ({
      submissionId: randomUUID(),
      protocol: newProtocol(),
      agentId,
      status: "accepted" as const,
      request,
      createdAt,
    }));
    await handle.db.insert(sales).values(rows);
    return rows;
  }

  /** A customer's sales among others', the statistics made from them: they hold every value of the customer. */
  async function markedCustomer(tag: string, birthDate: string, createdAt: Date) {
    const marked = customer(tag, birthDate);
    await insertSales(marked, MARKED_SALES, createdAt);
    for (let other = 0; other < OTHER_SALES; other++) await insertSales(customer("outro"), 1, new Date());
    await handle.db.execute(sql`analyze sales`);
    const held = await statistics();
    for (const marker of markers(marked)) expect(held).toContain(marker);
    // Searched for in the history's export by their CPF, as a supervisor would.
    const { rows } = await exportCsvBatch(
      handle.db,
      { search: saleSearch(marked.customerDocument), timeZone: "America/Sao_Paulo" },
      { limit: 100, names: { plans: [] } },
    );
    expect(rows).toBe(MARKED_SALES);
    return marked;
  }

  async function expectNowhere(marked: PartnerSaleRequestBody) {
    const [rows, held] = [await tables(), await statistics()];
    for (const marker of markers(marked)) {
      expect(rows).not.toContain(marker);
      expect(held).not.toContain(marker);
    }
    if (statementsKept) {
      const kept = await statements();
      // The export's COPY is there, as its text: it holds no value.
      expect(kept).toMatch(/^copy \(/m);
      for (const marker of markers(marked)) expect(kept).not.toContain(marker);
    }
  }

  beforeAll(async () => {
    handle = await open();
    agentId = (
      await insertAgent(handle.db, {
        email: "ana@example.com",
        name: "Ana",
        role: "agent",
        passwordHash: null,
      })
    ).id;
    if (handle.databaseUrl) {
      const [loaded] = rowsOf<{ loaded: boolean }>(
        await handle.db.execute(
          sql`select current_setting('shared_preload_libraries') like '%pg_stat_statements%' as loaded`,
        ),
      );
      statementsKept = loaded!.loaded;
      if (statementsKept) await handle.db.execute(sql`create extension if not exists pg_stat_statements`);
    }
  });
  afterAll(() => handle.close());

  it("leaves no value of a customer who asked, in any table, statistic or kept statement", async () => {
    const marked = await markedCustomer("pedido", "1931-02-11", new Date(Date.now() - 10 * DAY));
    const erased = await runTool(
      "customers",
      ["erase", "--cpf-stdin", "--reason", "chamado 5120"],
      {
        DATA_DIR: handle.dataDir,
        DATABASE_URL: handle.databaseUrl ?? "",
        AUTH_SECRET: "a test secret of at least thirty-two characters",
      },
      `${marked.customerDocument}\n`,
    );
    expect(erased.stdout).toBe(`Erased ${MARKED_SALES} sales.\n`);
    expect(erased.status).toBe(0);
    await expectNowhere(marked);
  });

  it("leaves no value of a customer past retention, in any table, statistic or kept statement", async () => {
    const marked = await markedCustomer("retencao", "1932-03-12", new Date(Date.now() - 400 * DAY));
    const run = await runRetention(handle.db, {
      retentionDays: 365,
      actor: { actor: "retention", door: "system" },
    });
    expect(run).toEqual({ ran: true, expired: MARKED_SALES, requested: 0 });
    await expectNowhere(marked);
  });
});
