import { readFileSync } from "node:fs";
import { expect, test } from "./fixtures";
import { SalesHistoryPage } from "./pages/sales-history-page";
import { signInElsewhere } from "./pages/sign-in-page";
import { createAgent } from "./support/agents-cli";
import { DEMO_AGENT, E2E_LOG_FILE } from "./support/environment";
import { sandboxControl } from "./support/sandbox";
import { sellOverApi } from "./support/sell";
import { EXPORT_HEADER } from "./support/export-csv";

/** The file as a spreadsheet reads it: a UTF-8 BOM, then LF-separated records of `;`-separated cells. */
function csvLines(bytes: Buffer): string[] {
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const text = bytes.subarray(3).toString("utf8");
  expect(text.endsWith("\n")).toBe(true);
  expect(text).not.toMatch(/\r/);
  return text.slice(0, -1).split("\n");
}

test("the export holds the history's filter and only the agent's own sales, safe to open in a spreadsheet", async ({
  browser,
  signedIn: demoAgent,
}) => {
  const someoneElse = await sellOverApi(demoAgent, { customerName: "Outra Cliente" });
  const agent = await createAgent();
  const page = await signInElsewhere(browser, agent.email, agent.password);
  const accepted = await sellOverApi(page, {
    customerName: "Helena Prado",
    externalId: '=HYPERLINK("http://x")',
  });
  await sandboxControl("POST", "faults", { kind: "503" });
  const unknown = await sellOverApi(page, { customerName: "-Iago Dias" });

  const history = new SalesHistoryPage(page);
  await history.goto();
  await expect(history.row(accepted.protocol)).toBeVisible();
  const all = await history.exportCsv();
  expect(all.fileName).toMatch(/^vendas-\d{4}-\d{2}-\d{2}\.csv$/);
  const [header, ...rows] = csvLines(all.bytes);
  expect(header).toBe(EXPORT_HEADER);
  expect(rows).toHaveLength(2);
  const [newest, oldest] = rows.map((row) => row.split(";"));
  expect(newest).toEqual([
    expect.stringMatching(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}$/),
    unknown.protocol,
    "A confirmar",
    "Agente Teste",
    "",
    "'-Iago Dias",
    expect.stringMatching(/^\*\*\*\.\d{3}\.\d{3}-\*\*$/),
    "Plano Essencial",
    "",
    "",
    "",
    "",
    // No offer script: no evidence (e2e/dispute-pack.spec.ts has a scripted sale).
    ...["", "", "", ""],
  ]);
  expect(oldest?.slice(1, 6)).toEqual([accepted.protocol, "Aceita", "Agente Teste", "", "Helena Prado"]);
  // Formulas never run: a leading ' keeps the cell text, and the quotes keep it one cell.
  expect(rows[1]).toContain(`;"'=HYPERLINK(""http://x"")";Venda de parceiro registrada.;;`);
  expect(all.bytes.toString("utf8")).not.toContain(someoneElse.protocol);

  await history.filter("A confirmar").click();
  await expect(history.exportLink()).toHaveAttribute("href", "/sales/export?status=unknown");
  const filtered = await history.exportCsv();
  expect(filtered.fileName).toMatch(/^vendas-a-confirmar-\d{4}-\d{2}-\d{2}\.csv$/);
  const [, ...unknownRows] = csvLines(filtered.bytes);
  expect(unknownRows.map((row) => row.split(";")[1])).toEqual([unknown.protocol]);

  // A supervisor's export holds everyone's sales.
  const supervisor = await signInElsewhere(browser, "supervisor@demo.local", DEMO_AGENT.password);
  const team = await supervisor.request.get("/sales/export");
  expect(team.headers()["content-type"]).toBe("text/csv; charset=utf-8");
  expect(team.headers()["x-content-type-options"]).toBe("nosniff");
  expect(team.headers()["cache-control"]).toBe("no-store");
  expect(team.headers()["content-disposition"]).toMatch(
    /^attachment; filename="vendas-\d{4}-\d{2}-\d{2}\.csv"$/,
  );
  const teamText = (await team.body()).toString("utf8");
  for (const sale of [someoneElse, accepted, unknown]) expect(teamText).toContain(sale.protocol);

  // Counted in the log, without a customer's data.
  const logLines = readFileSync(E2E_LOG_FILE, "utf8")
    .split("\n")
    .filter((line) => line.includes('"sales.exported"'));
  expect(logLines.at(-1)).toContain('"rows":');
  expect(logLines.join("\n")).not.toMatch(/Helena|Iago|HYPERLINK/);

  await page.context().close();
  await supervisor.context().close();
});

test("signed out, the export sends the person to sign in and back", async ({ page }) => {
  const answer = await page.request.get("/sales/export?status=unknown", { maxRedirects: 0 });
  expect(answer.status()).toBe(307);
  const location = new URL(answer.headers().location!, "http://localhost");
  expect(location.pathname).toBe("/sign-in");
  expect(location.searchParams.get("callbackUrl")).toBe("/sales/export?status=unknown");
});
