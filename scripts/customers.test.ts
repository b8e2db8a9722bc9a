import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import { insertAgent } from "@/lib/db/queries/agents";
import { sales, type SaleStatus } from "@/lib/db/schema";
import { formatDateTime } from "@/lib/format";
import { formatProtocol, newProtocol } from "@/lib/sales/protocol";
import { runTool } from "@/test/cli";
import { testDatabases } from "@/test/databases";
import { insertIntegration, sellByIntegration } from "@/test/integration-sales";

const CPF = "52998224725";
const PERSON = {
  customerDocument: CPF,
  customerName: "Conceição Araújo",
  customerEmail: "conceicao.araujo@example.com",
  customerPhone: "21988887777",
  birthDate: "1979-05-02",
  planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
  externalId: "CRM-77",
};
const DAY = 86_400_000;
// Recent enough that retention (365 days in the purge below) never reaches them, whenever the test runs.
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);
const at = (date: Date) => formatDateTime(date, "America/Sao_Paulo", "minutes");
const personal = [CPF, PERSON.customerName, PERSON.customerEmail, PERSON.customerPhone, PERSON.birthDate];

describe.each(testDatabases)("customers CLI on $name, while the app holds the database", ({ open }) => {
  let handle: DatabaseHandle & { databaseUrl?: string; dataDir: string };
  let env: Record<string, string>;
  const made: { protocol: string; submissionId: string; createdAt: Date }[] = [];
  const customers = (args: string[], extra: Record<string, string> = {}) =>
    runTool("customers", args, { ...env, ...extra });

  async function insertSale(status: SaleStatus, createdAt: Date, request: Record<string, string> = PERSON) {
    const row = { submissionId: randomUUID(), protocol: newProtocol(), createdAt };
    await handle.db.insert(sales).values({ ...row, agentId, status, request: request as typeof PERSON });
    made.push(row);
    return row;
  }
  let agentId: string;

  beforeAll(async () => {
    handle = await open();
    env = {
      DATA_DIR: handle.dataDir,
      DATABASE_URL: handle.databaseUrl ?? "",
      AUTH_SECRET: "the e2e secret, thirty-two characters or more",
      // Whatever a developer's .env.local says: the expected times are São Paulo's.
      APP_TIME_ZONE: "America/Sao_Paulo",
    };
    agentId = (
      await insertAgent(handle.db, {
        email: "ana@example.com",
        name: "Ana",
        role: "agent",
        passwordHash: null,
      })
    ).id;
    await insertSale("accepted", daysAgo(40));
    await insertSale("rejected", daysAgo(30));
    await insertSale("accepted", daysAgo(20), { ...PERSON, customerDocument: "11144477735" });
  });
  afterAll(() => handle.close());

  it("finds a customer's sales by CPF typed with or without punctuation", async () => {
    for (const cpf of ["529.982.247-25", CPF, " 529 982 247 25 "]) {
      // From standard input too, out of the shell's history.
      const found =
        cpf === CPF
          ? await runTool("customers", ["find", "--cpf-stdin", "--reason", "Chamado 4471"], env, `${cpf}\n`)
          : await customers(["find", "--cpf", cpf, "--reason", "Chamado 4471"]);
      expect(found.status).toBe(0);
      expect(found.stdout).toBe(
        [
          "2 sales:",
          `${formatProtocol(made[0]!.protocol)}  ${at(made[0]!.createdAt)}  Aceita  Plano Essencial  ana@example.com  Conceição Araújo`,
          `${formatProtocol(made[1]!.protocol)}  ${at(made[1]!.createdAt)}  Recusada  Plano Essencial  ana@example.com  Conceição Araújo`,
          "",
        ].join("\n"),
      );
    }
  });

  it("exports everything held about the customer as JSON", async () => {
    const exported = await customers(["export", "--cpf", CPF, "--reason", "Chamado 4471"]);
    expect(exported.status).toBe(0);
    const json = JSON.parse(exported.stdout) as { sales: Record<string, unknown>[] };
    expect(json.sales.map((sale) => sale.protocol)).toEqual([made[0]!.protocol, made[1]!.protocol]);
    expect(json.sales[0]).toMatchObject({
      request: PERSON,
      status: "accepted",
      agent: { name: "Ana", email: "ana@example.com" },
      personalDataErasedAt: null,
    });
  });

  it("erases the customer's data; find then lists the sales as erased and export holds none of it", async () => {
    const erased = await customers([
      "erase",
      "--cpf",
      "529.982.247-25",
      "--reason",
      "Pedido do titular, chamado 4480",
    ]);
    expect(erased.status).toBe(0);
    expect(erased.stdout).toBe("Erased 2 sales.\n");

    const found = await customers(["find", "--cpf", CPF, "--reason", "Confirmação ao titular"]);
    expect(found.stdout).toContain("2 sales:");
    expect(found.stdout.match(/dados removidos \(pedido do titular\)/g)).toHaveLength(2);
    const exported = await customers([
      "export",
      "--cpf",
      "529.982.247-25",
      "--reason",
      "Confirmação ao titular",
    ]);
    for (const value of personal) {
      expect(found.stdout).not.toContain(value);
      expect(exported.stdout).not.toContain(value);
    }
    expect(JSON.parse(exported.stdout).sales[0].request).toEqual({
      customerDocument: "***982247**",
      customerName: "",
      customerEmail: "",
      customerPhone: "",
      planId: PERSON.planId,
      externalId: "CRM-77",
    });
    // Another customer's sale is untouched.
    const other = await customers(["find", "--cpf", "111.444.777-35", "--reason", "x"]);
    expect(other.stdout).toContain("Conceição Araújo");
  });

  it("says so when no sale holds the CPF", async () => {
    const none = await customers(["erase", "--cpf", "153.509.460-56", "--reason", "Chamado 4490"]);
    expect(none.status).toBe(0);
    expect(none.stdout).toBe("No sale holds this CPF: nothing to erase.\n");
  });

  it("runs retention on demand", async () => {
    const old = await insertSale("accepted", daysAgo(800), {
      ...PERSON,
      customerDocument: "98765432100",
    });
    const purged = await customers(["purge", "--reason", "Limpeza mensal"], {
      CUSTOMER_DATA_RETENTION_DAYS: "365",
    });
    expect(purged.status).toBe(0);
    expect(purged.stdout).toBe(
      "Erased 1 sale older than 365 days.\nErased 0 sales whose customer had asked.\n",
    );
    const [row] = await handle.db.select().from(sales).where(eq(sales.submissionId, old.submissionId));
    expect(row).toMatchObject({ personalDataErasure: "retention", customerDocumentDigest: null });
    // Retention keeps no way back to the customer: their CPF no longer finds the sale.
    const found = await customers(["find", "--cpf", "98765432100", "--reason", "x"]);
    expect(found.stdout).toBe("No sale holds this CPF.\n");
  });

  it("puts each request on the audit trail with its reason and never the CPF", async () => {
    const trail = await runTool("audit", ["list", "--since", "2000-01-01"], env);
    expect(trail.status).toBe(0);
    const lines = trail.stdout.trim().split("\n");
    const actions = lines.map((line) => line.split("  ")[2]);
    expect(actions).toEqual([
      "customer.found",
      "customer.found",
      "customer.found",
      "customer.exported",
      "customer.erased",
      "customer.found",
      "customer.exported",
      "customer.found",
      "customer.erased",
      "retention.erased",
      "customer.found",
    ]);
    expect(lines[4]).toContain('"Pedido do titular, chamado 4480"');
    expect(lines[4]).toContain(made[0]!.protocol);
    expect(lines[9]).toContain('"Limpeza mensal"');
    for (const cpf of [CPF, "11144477735", "98765432100", "529.982.247-25"])
      expect(trail.stdout).not.toContain(cpf);
    expect((await runTool("audit", ["list", "--since", "2999-01-01"], env)).stdout).toBe(
      "No audit events.\n",
    );
  });

  it("says so when the erasure is done but the planner statistics could not be rebuilt (exit 1)", async () => {
    const sale = await insertSale("accepted", daysAgo(5), { ...PERSON, customerDocument: "15350946056" });
    const erase = () => customers(["erase", "--cpf", "153.509.460-56", "--reason", "Chamado 4500"]);
    await handle.db.execute(sql`alter function analyze_sales() rename to analyze_sales_away`);
    try {
      const failed = await erase();
      expect(failed.status).toBe(1);
      expect(failed.stderr).toContain("The erasure is done and on the audit trail");
    } finally {
      await handle.db.execute(sql`alter function analyze_sales_away() rename to analyze_sales`);
    }
    const [row] = await handle.db.select().from(sales).where(eq(sales.submissionId, sale.submissionId));
    expect(row!.personalDataErasure).toBe("request");
    // Asked again, it has nothing left to erase and rebuilds them.
    expect(await erase()).toMatchObject({ status: 0, stdout: "No sale holds this CPF: nothing to erase.\n" });
  });

  it.each([
    [["find", "--reason", "x"], "--cpf (or --cpf-stdin) is required."],
    [["find", "--cpf", "529.982.247-26", "--reason", "x"], "--cpf: "],
    [["find", "--cpf", "abc", "--reason", "x"], "--cpf: O CPF deve conter apenas números."],
    [["erase", "--cpf", CPF], "--reason is required"],
    [["erase", "--cpf", CPF, "--reason", "  "], "--reason is required"],
    [["erase", "--cpf", CPF, "--reason", "titular 529.982.247-25"], "--reason must not hold a CPF"],
    [["erase", "--cpf", CPF, "--reason", "pedido de ana@example.com"], "--reason must not hold a CPF"],
    [["purge", "--cpf", CPF], "purge erases by age, not by CPF"],
    [["forget", "--cpf", CPF], 'Unknown command "forget".'],
  ])("explains a wrong call: %j", async (args, message) => {
    const result = await customers(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("names who sold each sale: an integration alone, or on an agent's behalf", async () => {
    const request = { ...PERSON, customerDocument: "12345678909" };
    const crm = await insertIntegration(handle.db, "crm");
    const alone = await sellByIntegration(handle.db, { integrationId: crm.id, agentId: null, request });
    const onBehalf = await sellByIntegration(handle.db, { integrationId: crm.id, agentId, request });

    const found = await customers(["find", "--cpf", "123.456.789-09", "--reason", "Chamado 4510"]);
    expect(found.stdout).toBe(
      [
        "2 sales:",
        `${formatProtocol(alone.protocol)}  ${at(alone.createdAt)}  Aceita  Plano Essencial  integration crm  Conceição Araújo`,
        `${formatProtocol(onBehalf.protocol)}  ${at(onBehalf.createdAt)}  Aceita  Plano Essencial  ana@example.com via crm  Conceição Araújo`,
        "",
      ].join("\n"),
    );
    const exported = await customers(["export", "--cpf", "123.456.789-09", "--reason", "Chamado 4510"]);
    const json = JSON.parse(exported.stdout) as { sales: Record<string, unknown>[] };
    expect(json.sales.map(({ agent, integration }) => ({ agent, integration }))).toEqual([
      { agent: null, integration: { id: crm.id, name: "crm" } },
      {
        agent: { id: agentId, name: "Ana", email: "ana@example.com" },
        integration: { id: crm.id, name: "crm" },
      },
    ]);
    for (const sale of json.sales) expect(sale).not.toHaveProperty("integrationId");
  });
});
