import { randomInt } from "node:crypto";
import type { ConsoleMessage, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { SalesHistoryPage } from "./pages/sales-history-page";
import { signInElsewhere } from "./pages/sign-in-page";
import { expectNoAxeViolations } from "./support/accessibility";
import { createAgent, type TestAgent } from "./support/agents-cli";
import { DEMO_AGENT } from "./support/environment";
import { englishWordsIn } from "./support/english-words";
import { formatCpf, sandboxControl } from "./support/sandbox";
import { sellOverApi, type SoldSale } from "./support/sell";
import { EXPORT_HEADER } from "./support/export-csv";

// 120 sales from two new agents, sold through the app's own API: the history, its export and the dashboard are
// checked against what the test itself knows it sold. The e2e database holds other specs' sales too, so every
// customer here carries this run's word (letters only, as names allow) and the supervisor narrows to it.
const RUN = Array.from({ length: 8 }, () => "bcdfghjklmnpqrstvwxz"[randomInt(20)]).join("");
const WORD = RUN[0]!.toUpperCase() + RUN.slice(1);

interface Seller {
  agent: TestAgent;
  page: Page;
  sales: SoldSale[];
}

const sellers: Seller[] = [];
let supervisor: Page;
// The sales made for the searches: one per kind of search.
let findable: SoldSale;
let formula: SoldSale;

async function sell(seller: Seller, overrides: Record<string, unknown> = {}) {
  const index = seller.sales.length;
  const sale = await sellOverApi(seller.page, {
    customerName: `Cliente ${WORD} ${seller.agent.name.split(" ")[1]} ${"abcdefghij"[index % 10]}`,
    customerEmail: `c${index}.${RUN}@example.com`,
    externalId: `WS-${RUN}-${seller.agent.name.split(" ")[1]}-${index}`,
    ...overrides,
  });
  seller.sales.push(sale);
  return sale;
}

const protocolsOf = (sales: SoldSale[]) => sales.map((sale) => sale.protocol);
const statusCounts = (sales: SoldSale[]) => {
  const counts: Record<string, number> = { accepted: 0, rejected: 0, failed: 0, unknown: 0 };
  for (const sale of sales) counts[sale.status] = (counts[sale.status] ?? 0) + 1;
  return counts;
};
/** "DD/MM/AAAA" of the day `daysAgo` before today in São Paulo (APP_TIME_ZONE's default). */
function brazilianDay(daysAgo: number): string {
  const day = new Date(Date.now() - daysAgo * 86_400_000);
  return new Intl.DateTimeFormat("pt-BR", { timeZone: "America/Sao_Paulo" }).format(day);
}

/** The file as a spreadsheet reads it: a UTF-8 BOM, then LF-separated records of `;`-separated cells. */
function csvRows(bytes: Buffer): string[][] {
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const [header, ...rows] = bytes.subarray(3).toString("utf8").slice(0, -1).split("\n");
  expect(header).toBe(EXPORT_HEADER);
  return rows.map((row) => row.split(";"));
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(180_000);
  await sandboxControl("POST", "reset");
  for (const name of ["Agente Alfa", "Agente Bravo"]) {
    const agent = await createAgent("agent", {}, name);
    sellers.push({ agent, page: await signInElsewhere(browser, agent.email, agent.password), sales: [] });
  }
  const [alfa, bravo] = sellers as [Seller, Seller];
  for (let round = 0; round < 60; round++) {
    for (const seller of [alfa, bravo]) {
      if (round % 12 === 5) await sandboxControl("POST", "faults", { kind: "503" });
      if (round % 15 === 7) {
        // The same customer and plan again: the provider refuses it.
        const earlier = seller.sales.find((sale) => sale.status === "accepted")!;
        await sell(seller, { customerDocument: earlier.body.customerDocument });
      } else await sell(seller);
    }
  }
  findable = await sell(alfa, {
    customerName: `Conceição ${WORD} Araújo`,
    customerEmail: `joana.${RUN}@provedor.com.br`,
    customerPhone: "21988887777",
  });
  formula = await sell(alfa, { customerName: `-Iago ${WORD}`, externalId: '=HYPERLINK("http://x")' });
  supervisor = await signInElsewhere(browser, "supervisor@demo.local", DEMO_AGENT.password);
  expect(alfa.sales.length + bravo.sales.length).toBe(122);
  for (const status of ["accepted", "rejected", "unknown"]) {
    expect(statusCounts(alfa.sales)[status]).toBeGreaterThan(0);
  }
});

test.afterAll(async () => {
  for (const seller of sellers) await seller.page.context().close();
  await supervisor?.context().close();
});

test("an agent pages through all of their sales and none of the other's", async () => {
  const [alfa, bravo] = sellers as [Seller, Seller];
  const history = new SalesHistoryPage(alfa.page);
  await history.goto();
  expect(await history.protocols()).toHaveLength(50);
  await expect(history.newer()).toBeHidden();
  const seen = await history.protocolsToTheEnd();
  expect(seen).toEqual(protocolsOf(alfa.sales).reverse());
  expect(seen.filter((protocol) => protocolsOf(bravo.sales).includes(protocol))).toEqual([]);
  // And back again, one page newer.
  await history.follow(history.newer());
  expect(await history.protocols()).toEqual(seen.slice(0, 50));
  // Counts per status are the agent's own.
  const counts = statusCounts(alfa.sales);
  expect(await history.count("Todas")).toBe(alfa.sales.length);
  expect(await history.count("A confirmar")).toBe(counts.unknown);
  expect(await history.count("Recusada")).toBe(counts.rejected);
  await expectNoAxeViolations(alfa.page);
  expect(await englishWordsIn(alfa.page)).toEqual([]);
});

test("a supervisor pages through all 120 with none missing or repeated while new sales arrive", async () => {
  const history = new SalesHistoryPage(supervisor);
  await history.goto(`?q=${RUN}`);
  const before = sellers.flatMap((seller) => seller.sales);
  const arrived: SoldSale[] = [];
  const seen = await history.protocolsToTheEnd(async () => {
    arrived.push(await sell(sellers[arrived.length % 2]!));
  });
  expect(arrived.length).toBeGreaterThanOrEqual(2);
  expect(new Set(seen).size).toBe(seen.length);
  expect([...seen].sort()).toEqual(protocolsOf(before).sort());
  // The new ones are on top, on the first page.
  await history.goto(`?q=${RUN}`);
  expect((await history.protocols()).slice(0, arrived.length)).toEqual(protocolsOf(arrived).reverse());
  await expectNoAxeViolations(supervisor);
  expect(await englishWordsIn(supervisor)).toEqual([]);
});

test("each filter finds the right sales, and the address restores the view", async () => {
  const [alfa, bravo] = sellers as [Seller, Seller];
  const history = new SalesHistoryPage(supervisor);
  await history.goto();
  // Agent and dates through the form, as a person would: the address then carries them.
  await history.agent().selectOption({ label: `${bravo.agent.name} · ${bravo.agent.email}` });
  await history.from().fill(brazilianDay(1));
  await history.to().fill(brazilianDay(0));
  await history.apply().click();
  await expect(supervisor).toHaveURL(/agent=.*&from=.*&to=/);
  const bravos = await history.protocolsToTheEnd();
  expect([...bravos].sort()).toEqual(protocolsOf(bravo.sales).sort());

  await history.filter("A confirmar").click();
  await expect(supervisor).toHaveURL(/status=unknown/);
  const address = supervisor.url();
  const unknown = protocolsOf(bravo.sales.filter((sale) => sale.status === "unknown"));
  expect([...(await history.protocols())].sort()).toEqual([...unknown].sort());

  // The same address in a new tab is the same view, the form filled in as it was.
  const again = await supervisor.context().newPage();
  await again.goto(address);
  const restored = new SalesHistoryPage(again);
  expect([...(await restored.protocols())].sort()).toEqual([...unknown].sort());
  await expect(restored.from()).toHaveValue(brazilianDay(1));
  await expect(restored.to()).toHaveValue(brazilianDay(0));
  await expect(restored.filter("A confirmar")).toHaveAttribute("aria-current", "page");
  await again.close();

  // A range before any of these sales: an empty result, still accessible.
  const agentHistory = new SalesHistoryPage(alfa.page);
  await agentHistory.goto(`?from=01/01/2020&to=${brazilianDay(2)}`);
  await expect(alfa.page.getByText("Nenhuma venda encontrada com este filtro.")).toBeVisible();
  await expectNoAxeViolations(alfa.page);
});

test("each kind of search finds the right sale", async () => {
  const [alfa] = sellers as [Seller];
  const history = new SalesHistoryPage(alfa.page);
  const cpf = findable.body.customerDocument as string;
  for (const typed of [
    formatCpf(cpf),
    cpf,
    `conceicao ${RUN}`,
    `joana.${RUN}@prov`,
    "(21) 98888-7777",
    formula.body.externalId as string,
    findable.protocol,
    findable.protocol.replace("-", "").toLowerCase(),
    findable.submissionId,
  ]) {
    await history.goto();
    await history.search().fill(typed);
    await history.search().press("Enter");
    await expect(alfa.page).toHaveURL(/\?q=/);
    const expected = typed === formula.body.externalId ? formula.protocol : findable.protocol;
    await expect.poll(() => history.protocols(), { message: typed }).toEqual([expected]);
  }
});

test("the filter works without JavaScript, with the keyboard alone", async ({ browser }) => {
  const [alfa] = sellers as [Seller];
  const context = await browser.newContext({
    javaScriptEnabled: false,
    storageState: await alfa.page.context().storageState(),
  });
  const page = await context.newPage();
  await page.goto("/sales");
  await page.getByRole("searchbox", { name: "Buscar" }).focus();
  await page.keyboard.type(`conceicao ${RUN}`);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`q=conceicao\\+${RUN}`));
  expect(await new SalesHistoryPage(page).protocols()).toEqual([findable.protocol]);
  // A wrong date is explained under its field, in pt-BR, and the rest of the filter still applies.
  await page.goto(`/sales?q=conceicao+${RUN}&from=31/02/2026`);
  await expect(page.getByText("Esta data não existe.")).toBeVisible();
  expect(await new SalesHistoryPage(page).protocols()).toEqual([findable.protocol]);
  await context.close();
});

test("the export holds exactly the filter's sales, neutralised for spreadsheets; an agent's only theirs", async () => {
  const [alfa, bravo] = sellers as [Seller, Seller];
  const history = new SalesHistoryPage(alfa.page);
  await history.goto("?status=unknown");
  await expect(history.exportLink()).toHaveAttribute("href", "/sales/export?status=unknown");
  const unknown = await history.exportCsv();
  expect(unknown.fileName).toMatch(/^vendas-a-confirmar-\d{4}-\d{2}-\d{2}\.csv$/);
  expect(csvRows(unknown.bytes).map((row) => row[1])).toEqual(
    protocolsOf(alfa.sales.filter((sale) => sale.status === "unknown")).reverse(),
  );

  // The agent's whole export: theirs, none of the other agent's, formulas made text.
  await history.goto();
  const everything = csvRows((await history.exportCsv()).bytes);
  expect(everything.map((row) => row[1])).toEqual(protocolsOf(alfa.sales).reverse());
  expect(everything.filter((row) => protocolsOf(bravo.sales).includes(row[1]!))).toEqual([]);
  const formulaRow = everything.find((row) => row[1] === formula.protocol)!.join(";");
  expect(formulaRow).toContain(`;'-Iago ${WORD};`);
  expect(formulaRow).toContain(`;"'=HYPERLINK(""http://x"")";`);

  // A supervisor's search, exported: the same sales as the list under it.
  const team = await supervisor.request.get(`/sales/export?q=${RUN}&agent=${await agentIdOf(bravo)}`);
  const teamRows = csvRows(await team.body());
  expect([...teamRows.map((row) => row[1])].sort()).toEqual(protocolsOf(bravo.sales).sort());
  expect(teamRows.every((row) => row[3] === bravo.agent.name)).toBe(true);

  // A parameter the history would set aside is refused, in the app's error shape, not exported loosely.
  const refused = await alfa.page.request.get("/sales/export?from=99/99/2026");
  expect(refused.status()).toBe(400);
  expect(await refused.json()).toEqual({
    error: "invalid_fields",
    message: "Corrija os campos indicados.",
    fieldErrors: { from: "Esta data não existe." },
  });
});

test("the dashboard's numbers are the sales the test made", async () => {
  const [alfa, bravo] = sellers as [Seller, Seller];
  const response = await alfa.page.goto("/dashboard");
  expect(response?.status()).toBe(404);

  // The rows per agent are a client component: hydrating them must find the markup the server wrote.
  const errors: string[] = [];
  const onConsole = (message: ConsoleMessage) => {
    if (message.type() === "error") errors.push(message.text());
  };
  const onPageError = (error: Error) => errors.push(error.message);
  supervisor.on("console", onConsole);
  supervisor.on("pageerror", onPageError);
  await supervisor.goto("/dashboard?period=30d");
  await expect(supervisor.getByRole("heading", { name: "Painel", level: 1 })).toBeVisible();
  // Hydrated: React has attached itself to the rows the client component rendered (a mismatch is reported then).
  await supervisor.waitForFunction(() => {
    const row = document.querySelector('section[aria-labelledby="agents-title"] tbody tr');
    return row !== null && Object.keys(row).some((key) => key.startsWith("__reactFiber$"));
  });
  for (const seller of [alfa, bravo]) {
    const row = supervisor.getByRole("row").filter({ hasText: seller.agent.email });
    const counts = statusCounts(seller.sales);
    const cells = await row.getByRole("cell").allInnerTexts();
    const decided = counts.accepted! + counts.rejected! + counts.failed! + counts.unknown!;
    expect(cells).toEqual([
      String(seller.sales.length),
      String(counts.accepted),
      String(counts.rejected),
      String(counts.failed),
      String(counts.unknown),
      new Intl.NumberFormat("pt-BR", { style: "percent", maximumFractionDigits: 1 }).format(
        counts.accepted! / decided,
      ),
    ]);
  }
  // The unknown sales to settle: the number links to the list of them, whose count agrees.
  const settle = supervisor.getByRole("link", { name: /vendas? a confirmar$/ });
  const waiting = Number((await settle.innerText()).split(" ")[0]!.replaceAll(".", ""));
  expect(waiting).toBeGreaterThanOrEqual(statusCounts([...alfa.sales, ...bravo.sales]).unknown!);
  await expect(supervisor.getByRole("img", { name: /Vendas por dia e resultado/ })).toBeVisible();
  await expectNoAxeViolations(supervisor);
  expect(await englishWordsIn(supervisor)).toEqual([]);
  supervisor.off("console", onConsole);
  supervisor.off("pageerror", onPageError);
  expect(errors).toEqual([]);
  await settle.click();
  await expect(supervisor).toHaveURL(/\/sales\?status=unknown$/);
  expect(await new SalesHistoryPage(supervisor).count("A confirmar")).toBe(waiting);
});

async function agentIdOf(seller: Seller): Promise<string> {
  const history = new SalesHistoryPage(supervisor);
  await history.goto();
  const option = history.agent().locator("option", { hasText: seller.agent.email });
  return (await option.getAttribute("value"))!;
}
