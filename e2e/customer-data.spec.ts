import { expect, test } from "./fixtures";
import { SalesHistoryPage } from "./pages/sales-history-page";
import { operatorTool } from "./support/agents-cli";
import { formatCpf, sandboxControl, sandboxStats } from "./support/sandbox";
import { sellAgain, sellOverApi } from "./support/sell";

test("a customer's erasure: the history, the sale's page and the export say so, and the key still replays", async ({
  signedIn: page,
}) => {
  const startedAt = new Date().toISOString();
  const externalId = `LGPD-${Date.now()}`;
  const sale = await sellOverApi(page, {
    customerName: "Titular Que Pediu",
    customerEmail: "titular.pediu@example.com",
    customerPhone: "31912345678",
    birthDate: "1980-01-02",
    externalId,
  });
  expect(sale.status).toBe("accepted");
  const cpf = sale.body.customerDocument as string;

  const erased = await operatorTool("customers", [
    "erase",
    "--cpf",
    formatCpf(cpf),
    "--reason",
    "e2e: pedido do titular",
  ]);
  expect(erased.stderr).toBe("");
  expect(erased.stdout).toBe("Erased 1 sale.\n");

  // The same Idempotency-Key answers the recorded outcome; the provider is not called again.
  const replayed = await page.request.post("/api/sales", {
    data: sale.body,
    headers: { "Idempotency-Key": sale.submissionId },
  });
  expect(replayed.status()).toBe(200);
  expect(await replayed.json()).toMatchObject({
    submissionId: sale.submissionId,
    protocol: sale.protocol,
    status: "accepted",
    replay: true,
  });
  expect((await sellAgain(page, sale)).status).toBe("accepted");
  expect((await sandboxStats()).saleRequests).toBe(1);

  const personal = [
    "Titular Que Pediu",
    "titular.pediu@example.com",
    "31912345678",
    "(31) 91234-5678",
    cpf,
    formatCpf(cpf),
    "02/01/1980",
  ];
  const masked = `***.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-**`;

  // The history finds it by the partner's id (kept) and says why the customer is gone.
  const history = new SalesHistoryPage(page);
  await history.goto(`?q=${externalId}`);
  const row = history.row(sale.protocol);
  await expect(row).toContainText("dados removidos (pedido do titular)");
  await expect(row).toContainText(masked);
  for (const value of personal) await expect(row).not.toContainText(value);

  // Its page shows the masked CPF and the reason where the customer's data was.
  await page.goto(`/sales/${sale.submissionId}`);
  const sent = page.getByRole("region", { name: "Dados enviados" });
  await expect(sent).toContainText(masked);
  await expect(sent.getByText("dados removidos (pedido do titular)")).toHaveCount(4);
  for (const value of personal) await expect(page.locator("main")).not.toContainText(value);

  // The export of the same filter.
  await history.goto(`?q=${externalId}`);
  const file = (await history.exportCsv()).bytes.subarray(3).toString("utf8");
  const line = file.split("\n").find((candidate) => candidate.includes(sale.protocol))!;
  expect(line.split(";").slice(1, 8)).toEqual([
    sale.protocol,
    "Aceita",
    "Agente Demo",
    "",
    "dados removidos (pedido do titular)",
    masked,
    "Plano Essencial",
  ]);
  for (const value of personal) expect(file).not.toContain(value);

  // The trail has the erasure (with its reason, never the CPF) and the export (who, how many rows); it keeps
  // protocols as stored, ungrouped.
  const trail = (await operatorTool("audit", ["list", "--since", startedAt])).stdout;
  const lines = trail.split("\n");
  expect(
    lines.find(
      (entry) => entry.includes("customer.erased") && entry.includes(sale.protocol.replace("-", "")),
    ),
  ).toContain('"e2e: pedido do titular"');
  const exported = lines.findLast((entry) => entry.includes("history.exported"))!.split("  ");
  // Who exported it and through which door: the account's id (its e-mail beside it, for people).
  expect(exported.slice(2, 7)).toEqual([
    "history.exported",
    expect.stringMatching(/^agent:[0-9a-f-]{36} via password$/),
    "agente@demo.local",
    "-",
    "-",
  ]);
  expect(JSON.parse(exported[7]!)).toEqual({
    scope: "own",
    filter: { search: true },
    rows: 1,
    completed: true,
  });
  expect(trail).not.toContain(cpf);
});

test("an erased sale that failed is not sent again with the same key", async ({ signedIn: page }) => {
  // Nothing was sent: the token exchange failed. The same key would normally send it now.
  await sandboxControl("POST", "tokens/revoke");
  await sandboxControl("POST", "faults", { kind: "503", target: "token" });
  const failed = await sellOverApi(page, { customerName: "Sem Envio" });
  expect(failed.status).toBe("failed");

  // The provider saw the sale's first try refused (its token had been revoked), then no token came.
  const seen = (await sandboxStats()).saleRequests;
  const cpf = failed.body.customerDocument as string;
  const erased = await operatorTool("customers", [
    "erase",
    "--cpf",
    cpf,
    "--reason",
    "e2e: pedido do titular",
  ]);
  expect(erased.stdout).toBe("Erased 1 sale.\n");

  const again = await sellAgain(page, failed);
  expect(again.status).toBe("failed");
  expect((await sandboxStats()).saleRequests).toBe(seen);
});
