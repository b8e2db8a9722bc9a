import { expect, test } from "./fixtures";
import { SalePage } from "./pages/sale-page";
import { SalesHistoryPage } from "./pages/sales-history-page";
import { signInElsewhere } from "./pages/sign-in-page";
import { expectNoAxeViolations } from "./support/accessibility";
import { englishWordsIn } from "./support/english-words";
import { DEMO_AGENT, E2E_UPSTREAM_TIMEOUT_MS } from "./support/environment";
import { formatCpf, freshCpf, sandboxControl } from "./support/sandbox";
import { sellAgain, sellOverApi, type SoldSale } from "./support/sell";

const PREMIUM = "c18b5f73-96a0-4d2e-b4f1-7a3e8c6d9052";

test("every outcome reads in pt-BR for the agent and the supervisor, with the protocol and no violation", async ({
  browser,
  signedIn: page,
}) => {
  test.setTimeout(90_000);
  const accepted = await sellOverApi(page, { customerName: "Alice Prado", externalId: "CRM-10" });
  const cpf = freshCpf();
  await sellOverApi(page, { customerDocument: cpf, customerName: "Renata Dias", planId: PREMIUM });
  const rejected = await sellOverApi(page, {
    customerDocument: cpf,
    customerName: "Renata Dias",
    planId: PREMIUM,
  });
  await sandboxControl("POST", "tokens/revoke");
  await sandboxControl("POST", "faults", { kind: "503", target: "token" });
  const failed = await sellOverApi(page, { customerName: "Fábio Nunes" });
  // The token source now backs off; sending a failed sale again is the one thing that skips that (and clears it).
  const waiting = await sellOverApi(page, { customerName: "Gil Moura" });
  expect(waiting.status).toBe("failed");
  expect((await sellAgain(page, waiting)).status).toBe("accepted");
  await sandboxControl("POST", "faults", { kind: "503" });
  const serverError = await sellOverApi(page, { customerName: "Úrsula Lima" });
  await sandboxControl("POST", "faults", { kind: "timeout" });
  const timedOut = await sellOverApi(page, { customerName: "Tiago Reis" });
  expect([accepted, rejected, failed, serverError, timedOut].map((sale) => sale.status)).toEqual([
    "accepted",
    "rejected",
    "failed",
    "unknown",
    "unknown",
  ]);

  const cases: [SoldSale, string, string | RegExp][] = [
    [accepted, "Venda aceita", "O fornecedor aceitou a venda."],
    [rejected, "Venda recusada", "O fornecedor recusou a venda: o cliente já tem este plano."],
    [failed, "Venda não enviada", "Nada foi enviado: não foi possível obter a autorização do fornecedor."],
    [
      serverError,
      "Venda a confirmar",
      "Sem resposta confirmada do fornecedor. O fornecedor teve um erro (503).",
    ],
    [
      timedOut,
      "Venda a confirmar",
      `Sem resposta confirmada do fornecedor. O fornecedor não respondeu em ${E2E_UPSTREAM_TIMEOUT_MS / 1000} s.`,
    ],
  ];
  const supervisorPage = await signInElsewhere(browser, "supervisor@demo.local", DEMO_AGENT.password);
  for (const [viewer, supervisor] of [
    [page, false],
    [supervisorPage, true],
  ] as const) {
    const salePage = new SalePage(viewer);
    for (const [sale, heading, answer] of cases) {
      await salePage.goto(sale.submissionId);
      await expect(salePage.heading()).toHaveText(heading);
      await expect(viewer.getByRole("main").getByText(sale.protocol, { exact: true })).toBeVisible();
      await expect(viewer.getByRole("region", { name: "Resposta do fornecedor" })).toContainText(answer);
      await expect(viewer.getByText(sale.submissionId)).toBeHidden();
      expect(await englishWordsIn(viewer), `${heading}, supervisor: ${supervisor}`).toEqual([]);
      await expectNoAxeViolations(viewer);
      await expect(salePage.technicalDetails()).toHaveCount(supervisor ? 1 : 0);
    }
  }

  // The provider's own words stay its own, quoted; its codes and names only in the supervisors' details.
  const salePage = new SalePage(supervisorPage);
  await salePage.goto(accepted.submissionId);
  await expect(salePage.providerMessage()).toHaveText("“Venda de parceiro registrada.”");
  await expect(supervisorPage.getByText("ID do cliente no parceiro")).toBeVisible();
  await expect(supervisorPage.getByText("CRM-10")).toBeVisible();
  await expect(supervisorPage.getByText(formatCpf(accepted.body.customerDocument as string))).toBeVisible();
  await salePage.goto(serverError.submissionId);
  await expect(salePage.technicalDetails().getByText(serverError.submissionId)).toBeHidden();
  await salePage.technicalDetails().getByText("Detalhes técnicos").click();
  await expect(salePage.technicalDetails()).toContainText(serverError.submissionId);
  await expect(salePage.technicalDetails()).toContainText("server-error");
  await expect(salePage.technicalDetails()).toContainText("503");
  await expectNoAxeViolations(supervisorPage);

  const history = new SalesHistoryPage(page);
  for (const viewer of [page, supervisorPage]) {
    const list = new SalesHistoryPage(viewer);
    await list.goto();
    for (const [sale, status] of [
      [accepted, "Aceita"],
      [rejected, "Recusada"],
      [failed, "Não enviada"],
      [serverError, "A confirmar"],
    ] as const) {
      await expect(list.row(sale.protocol)).toContainText(status);
    }
    expect(await englishWordsIn(viewer)).toEqual([]);
    await expectNoAxeViolations(viewer);
  }
  await history.filter("A confirmar").click();
  await expect(page).toHaveURL(/\/sales\?status=unknown$/);
  await expect(history.row(serverError.protocol)).toBeVisible();
  await expect(history.row(accepted.protocol)).toHaveCount(0);
  await supervisorPage.context().close();
});

test("the scan finds English words and raw codes, and skips the provider's message and technical details", async ({
  page,
}) => {
  await page.setContent(`
    <title>Venda · Partner Sales</title>
    <main>
      <p>Venda aceita, protocolo 7KQ2M-X9R4B, e-mail ana-clara@example.com, enviá-la, CPF 529.982.247-25.</p>
      <p>Sale submitted: server-error, partner_api.unreachable, submissionId</p>
      <button aria-label="Status"></button>
      <blockquote data-provider-message>Venda de parceiro registrada.</blockquote>
      <details data-technical-details open><summary>Detalhes técnicos</summary>HTTP 503 server-error</details>
      <p hidden>failed</p>
    </main>`);
  expect((await englishWordsIn(page)).map(({ word }) => word)).toEqual([
    "Sale",
    "submitted",
    "server-error",
    "partner_api",
    "unreachable",
    "submissionId",
    "Status",
  ]);
});
