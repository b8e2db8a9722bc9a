import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compactVerify, importJWK, type JWK } from "jose";
import { expect, test } from "./fixtures";
import { SaleFormPage } from "./pages/sale-form-page";
import { SalesHistoryPage } from "./pages/sales-history-page";
import { signInElsewhere } from "./pages/sign-in-page";
import { operatorTool } from "./support/agents-cli";
import { DEMO_AGENT } from "./support/environment";
import { formatCpf, freshCpf, sandboxControl } from "./support/sandbox";
import { asSchemaOwner } from "./support/schema-owner";

interface DownloadedPack {
  pack: {
    sale: { protocol: string; submissionId: string; status: string };
    customer: { erased: unknown; data: { customerName: string } };
    evidence: { scriptVersion: string; recordingId: string | null; confirmations: { id: string }[] };
    auditTrail: { action: string }[];
  };
  signature: string;
}

// Needs the sale form's evidence fields (the confirmations' checkboxes, "ID da gravação da chamada").
test("a scripted sale's evidence shows on its page; its dispute pack verifies until the evidence is altered", async ({
  browser,
  signedIn: agentPage,
}) => {
  test.setTimeout(120_000);
  await sandboxControl("POST", "reset");
  const page = await signInElsewhere(browser, "supervisor@demo.local", DEMO_AGENT.password);

  // The sale, through the form: Plano Completo's script, its two required confirmations, the call's recording.
  const form = new SaleFormPage(page);
  await form.goto();
  await form.fill({
    cpf: formatCpf(freshCpf()),
    name: "Joana Prova",
    email: "joana.prova@example.com",
    phone: "11987654321",
    plan: "Plano Completo",
  });
  await page.getByRole("checkbox", { name: /aceitou o valor/ }).check();
  await page.getByRole("checkbox", { name: /autorizou o uso dos dados/ }).check();
  await page.getByLabel("ID da gravação da chamada").fill("gravacao-e2e-0001");
  await form.submit().click();
  await expect(form.status()).toContainText("Venda aceita");
  const protocol = (await form.protocol().textContent())!.trim();

  // Its page: the evidence, checked against the audit trail.
  const history = new SalesHistoryPage(page);
  await history.goto();
  await history.row(protocol).getByRole("link").click();
  await page.waitForURL(/\/sales\/[0-9a-f-]{36}$/);
  const submissionId = new URL(page.url()).pathname.split("/").at(-1)!;
  const evidence = page.getByRole("region", { name: "Evidência da venda" });
  await expect(evidence).toContainText("Evidência íntegra: confere com a trilha de auditoria");
  await expect(evidence).toContainText("2026-11");
  await expect(evidence).toContainText("gravacao-e2e-0001");
  await expect(evidence.getByRole("listitem")).toHaveCount(2);
  await expect(evidence.getByRole("listitem").first()).toContainText(
    /O cliente aceitou o valor de R\$\s69,90 por mês \(obrigatória; confirmada em \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}\)/,
  );

  // The dispute pack: downloaded, signed with the published key, verified against the app's database.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    evidence.getByRole("link", { name: "Baixar pacote de contestação (JSON assinado)" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`prova-venda-${protocol}.json`);
  const text = await readFile((await download.path())!, "utf8");
  const signed = JSON.parse(text) as DownloadedPack;
  expect(signed.pack.sale).toMatchObject({ protocol, submissionId, status: "accepted" });
  expect(signed.pack.customer.data.customerName).toBe("Joana Prova");
  expect(signed.pack.evidence).toMatchObject({ scriptVersion: "2026-11", recordingId: "gravacao-e2e-0001" });
  expect(signed.pack.evidence.confirmations.map((item) => item.id)).toEqual(["valor", "dados"]);
  expect(signed.pack.auditTrail.map((row) => row.action)).toContain("sale.evidence_recorded");

  const jwks = (await (await page.request.get("/api/v1/evidence-keys")).json()) as {
    keys: (JWK & { kid: string })[];
  };
  const header = JSON.parse(Buffer.from(signed.signature.split(".")[0]!, "base64url").toString()) as {
    kid: string;
  };
  const key = jwks.keys.find((each) => each.kid === header.kid)!;
  const { payload } = await compactVerify(signed.signature, await importJWK(key, "EdDSA"));
  expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(signed.pack);

  const path = join(tmpdir(), `prova-venda-${protocol}-${Date.now()}.json`);
  await writeFile(path, text);
  const verified = await operatorTool("evidence", ["verify", path]);
  expect(verified.stderr).toBe("");
  expect(verified.stdout).toMatch(new RegExp(`^Dispute pack of sale ${protocol} verified: signature`));

  // The download is on the audit trail; an agent gets no pack.
  const trail = await operatorTool("audit", [
    "list",
    "--since",
    new Date(Date.now() - 3_600_000).toISOString(),
  ]);
  expect(trail.stdout).toMatch(new RegExp(`sale\\.dispute_pack_exported .*${protocol.replace("-", "")}`));
  expect((await agentPage.request.get(`/sales/${submissionId}/dispute-pack`)).status()).toBe(404);

  // Someone with the database's keys changes a confirmation's time behind the guard trigger: both checks name it.
  await asSchemaOwner(
    "alter table sale_evidence disable trigger sale_evidence_guard",
    `update sale_evidence set confirmations = jsonb_set(confirmations, '{0,confirmedAt}', '"2020-01-01T00:00:00.000Z"') where submission_id = '${submissionId}'`,
    "alter table sale_evidence enable trigger sale_evidence_guard",
  );
  const altered = await operatorTool("evidence", ["verify", path]);
  expect(altered.status).toBe(1);
  expect(altered.stderr).toContain(
    `the evidence row of sale ${protocol} was altered: confirmations differs from what the audit trail recorded`,
  );
  await page.reload();
  await expect(evidence).toContainText(
    "Evidência alterada: o registro da evidência foi alterado: não confere mais com o hash que a trilha de auditoria registrou.",
  );
  await page.context().close();
});
