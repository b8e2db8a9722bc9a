import { expect, test } from "./fixtures";
import { SalePage } from "./pages/sale-page";
import { SalesHistoryPage } from "./pages/sales-history-page";
import { signInElsewhere } from "./pages/sign-in-page";
import { expectNoAxeViolations } from "./support/accessibility";
import { englishWordsIn } from "./support/english-words";
import { DEMO_AGENT } from "./support/environment";
import { formatCpf, sandboxControl } from "./support/sandbox";
import { sellAgain, sellOverApi } from "./support/sell";

const SUPERVISOR = { email: "supervisor@demo.local", name: "Supervisora Demo" };

test("a supervisor settles an unknown sale: asked, confirmed with the choice spelled out, kept in order", async ({
  browser,
  signedIn: agentPage,
}) => {
  // Three desks, three sign-ins and four axe scans, each on a page of its own: 15-20 s on an idle machine, over
  // 60 s on a loaded one. The budget is a hang detector, not a speed check.
  test.setTimeout(180_000);
  await sandboxControl("POST", "faults", { kind: "503" });
  const sale = await sellOverApi(agentPage, { customerName: "Rita Campos", externalId: "CRM-4410" });
  expect(sale.status).toBe("unknown");

  const desk = await signInElsewhere(browser, SUPERVISOR.email, DEMO_AGENT.password);
  const history = new SalesHistoryPage(desk);
  await history.goto("?status=unknown");
  await history.row(sale.protocol).getByRole("link").click();
  const salePage = new SalePage(desk);
  await expect(salePage.heading()).toHaveText("Venda a confirmar");

  // What the provider can be asked: it never received our protocol.
  const panel = salePage.settlePanel();
  await expect(panel).toContainText(formatCpf(sale.body.customerDocument as string));
  await expect(panel).toContainText("Plano Essencial");
  await expect(panel).toContainText("CRM-4410");
  await expect(panel).toContainText("Horário do envio");
  await expect(panel).not.toContainText(sale.protocol);
  await expectNoAxeViolations(desk);
  expect(await englishWordsIn(desk)).toEqual([]);

  // Chosen with the keyboard; the confirmation step takes the focus and reads out the consequence.
  await salePage.choice("Foi registrada").focus();
  await desk.keyboard.press("Enter");
  await expect(
    desk.getByRole("heading", { name: "Confirmar: o fornecedor registrou a venda?" }),
  ).toBeVisible();
  await expect(desk).toHaveTitle(/^Confirmar: foi registrada/);
  await expect(salePage.confirm()).toBeFocused();
  await expect(salePage.confirm()).toHaveAccessibleDescription(/A venda passa a Aceita\./);
  await expectNoAxeViolations(desk);
  expect(await englishWordsIn(desk)).toEqual([]);
  await salePage.back().click();
  await expect(salePage.confirm()).toHaveCount(0);
  await expect(salePage.choice("Não foi registrada")).toBeVisible();

  // A second desk reaches the same confirmation before the first confirms.
  const lateDesk = await signInElsewhere(browser, SUPERVISOR.email, DEMO_AGENT.password);
  const late = new SalePage(lateDesk);
  await late.goto(sale.submissionId);
  await late.choice("Não foi registrada").click();
  await expect(late.confirm()).toHaveAccessibleDescription(
    /A venda passa a Não enviada e pode ser vendida de novo\./,
  );

  await salePage.choice("Foi registrada").click();
  await expect(salePage.confirm()).toBeFocused();
  await desk.keyboard.press("Enter");
  await expect(salePage.status()).toHaveText("Conferência salva: a venda passou a Aceita.");
  await expect(salePage.heading()).toHaveText("Venda aceita");
  await expect(salePage.settlePanel()).toHaveCount(0);
  const { texts, chronological } = await salePage.timelineInOrder();
  expect(chronological).toBe(true);
  expect(texts).toEqual([
    expect.stringMatching(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} Enviada ao fornecedor por Agente Demo\.$/),
    expect.stringMatching(/ Sem resposta confirmada do fornecedor\. O fornecedor teve um erro \(503\)\.$/),
    expect.stringMatching(
      / Conferida por Supervisora Demo: o fornecedor registrou a venda; a venda passou a Aceita\.$/,
    ),
  ]);
  await expectNoAxeViolations(desk);
  expect(await englishWordsIn(desk)).toEqual([]);

  // The late confirmation changes nothing and says who settled it, and when.
  await late.confirm().click();
  await expect(late.alert()).toContainText(
    "Nada foi alterado: esta venda já tinha sido conferida por Supervisora Demo em",
  );
  await expect(late.alert()).toContainText("a venda passou a Aceita.");
  await expect(late.heading()).toHaveText("Venda aceita");
  await expectNoAxeViolations(lateDesk);

  // The agent reads the same story, without the supervisors' details.
  const agentView = new SalePage(agentPage);
  await agentView.goto(sale.submissionId);
  expect((await agentView.timelineInOrder()).texts).toEqual(texts);
  await expect(agentView.technicalDetails()).toHaveCount(0);
  expect(await englishWordsIn(agentPage)).toEqual([]);
  await desk.context().close();
  await lateDesk.context().close();
});

test("not registered: the sale becomes Não enviada, and sold again it keeps the confirmation before the new answer", async ({
  browser,
  signedIn: agentPage,
}) => {
  await sandboxControl("POST", "faults", { kind: "timeout" });
  const sale = await sellOverApi(agentPage, { customerName: "Caio Souto" });
  expect(sale.status).toBe("unknown");

  const desk = await signInElsewhere(browser, SUPERVISOR.email, DEMO_AGENT.password);
  const salePage = new SalePage(desk);
  await salePage.goto(sale.submissionId);
  await salePage.choice("Não foi registrada").click();
  await expect(
    desk.getByRole("heading", { name: "Confirmar: o fornecedor não registrou a venda?" }),
  ).toBeVisible();
  await salePage.confirm().click();
  await expect(salePage.status()).toHaveText(
    "Conferência salva: a venda passou a Não enviada e pode ser vendida de novo.",
  );
  await expect(salePage.heading()).toHaveText("Venda não enviada");
  expect(await englishWordsIn(desk)).toEqual([]);
  await expectNoAxeViolations(desk);

  // The agent sends the same sale again (same submissionId): the provider accepts it this time.
  expect((await sellAgain(agentPage, sale)).status).toBe("accepted");
  await salePage.goto(sale.submissionId);
  await expect(salePage.heading()).toHaveText("Venda aceita");
  const { texts, chronological } = await salePage.timelineInOrder();
  expect(chronological).toBe(true);
  expect(texts).toEqual([
    expect.stringMatching(/ Enviada ao fornecedor por Agente Demo \(2 tentativas\)\.$/),
    expect.stringMatching(/ Conferida por Supervisora Demo: o fornecedor não registrou a venda; /),
    expect.stringMatching(/ O fornecedor aceitou a venda\.$/),
  ]);
  await desk.context().close();
});
