import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "./fixtures";
import { signInElsewhere } from "./pages/sign-in-page";
import { createAgent } from "./support/agents-cli";
import { DEMO_AGENT } from "./support/environment";
import { formatCpf, freshCpf } from "./support/sandbox";

test("an agent finds the sale in their history, CPF masked, and opens it", async ({ saleForm, page }) => {
  const cpf = freshCpf();
  await saleForm.fill({
    cpf: formatCpf(cpf),
    name: "Helena Prado",
    email: "helena@example.com",
    phone: "(21) 3333-4444",
    plan: "Plano Premium",
    externalId: "CRM-77",
  });
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");

  await page.getByRole("banner").getByRole("link", { name: "Vendas" }).click();
  await expect(page.getByRole("heading", { name: "Minhas vendas" })).toBeVisible();
  // The masked CPF tells this run's sale from an earlier run's customer of the same name.
  const row = page
    .getByRole("row")
    .filter({ hasText: "Helena Prado" })
    .filter({ hasText: `***.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-**` });
  await expect(row).toBeVisible();
  await expect(row).toContainText("Plano Premium");
  await expect(row).toContainText("Aceita");
  const protocol = await row.getByText(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/).innerText();
  await expect(page.getByText(formatCpf(cpf))).toHaveCount(0);
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((violation) => violation.id)).toEqual([]);

  await row.getByRole("link").click();
  await expect(page.getByRole("heading", { name: "Venda aceita" })).toBeVisible();
  await expect(page.getByRole("main").getByText(protocol, { exact: true })).toBeVisible();
  await expect(page.getByText(formatCpf(cpf))).toBeVisible();
  await expect(page.getByText("(21) 3333-4444")).toBeVisible();
  await expect(page.getByText("Venda de parceiro registrada.")).toBeVisible();
});

test("a supervisor sees every agent's sales; an agent cannot open another's", async ({
  browser,
  saleForm,
  page,
}) => {
  const cpf = freshCpf();
  await saleForm.fill({
    cpf: formatCpf(cpf),
    name: "Otávio Reis",
    email: "otavio@example.com",
    phone: "(31) 98888-7777",
    plan: "Plano Essencial",
  });
  await saleForm.submit().click();
  await expect(saleForm.status()).toContainText("Venda aceita");
  await page.goto("/sales");
  const maskedCpf = `***.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-**`;
  const detailUrl = await page
    .getByRole("row")
    .filter({ hasText: maskedCpf })
    .getByRole("link")
    .getAttribute("href");

  const supervisor = await signInElsewhere(browser, "supervisor@demo.local", DEMO_AGENT.password);
  await supervisor.goto("/sales");
  await expect(supervisor.getByRole("heading", { name: "Vendas da equipe" })).toBeVisible();
  const teamRow = supervisor.getByRole("row").filter({ hasText: maskedCpf });
  await expect(teamRow).toContainText("Otávio Reis");
  await expect(teamRow).toContainText(DEMO_AGENT.name);
  await supervisor.context().close();

  const otherAgent = await createAgent();
  const other = await signInElsewhere(browser, otherAgent.email, otherAgent.password);
  await other.goto("/sales");
  await expect(other.getByText("Nenhuma venda por aqui.")).toBeVisible();
  const response = await other.goto(detailUrl!);
  expect(response?.status()).toBe(404);
  await other.context().close();
});
