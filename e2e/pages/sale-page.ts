import { expect, type Page } from "@playwright/test";

/** `/sales/[id]`: one sale, its timeline, and (supervisors, unknown sales) the settling steps. */
export class SalePage {
  constructor(readonly page: Page) {}

  readonly heading = () => this.page.getByRole("heading", { level: 1 });
  readonly timeline = () => this.page.getByRole("list", { name: "Linha do tempo" }).getByRole("listitem");
  readonly choice = (name: "Foi registrada" | "Não foi registrada") =>
    this.page.getByRole("link", { name, exact: true });
  readonly confirm = () => this.page.getByRole("button", { name: "Confirmar" });
  readonly back = () => this.page.getByRole("link", { name: "Voltar" });
  readonly settlePanel = () => this.page.getByRole("region", { name: "Conferir com o fornecedor" });
  // Within the page, not Next's route announcer, which is also an alert.
  readonly status = () => this.page.getByRole("main").getByRole("status");
  readonly alert = () => this.page.getByRole("main").getByRole("alert");
  readonly providerMessage = () => this.page.locator("[data-provider-message]");
  readonly technicalDetails = () => this.page.locator("[data-technical-details]");

  async goto(submissionId: string) {
    await this.page.goto(`/sales/${submissionId}`);
    await expect(this.heading()).toBeVisible();
  }

  /** The timeline's entries as shown, and whether their times run oldest first. */
  async timelineInOrder(): Promise<{ texts: string[]; chronological: boolean }> {
    const texts = (await this.timeline().allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim());
    const times = await this.timeline()
      .locator("time")
      .evaluateAll((elements) => elements.map((element) => Date.parse(element.getAttribute("datetime")!)));
    return { texts, chronological: times.every((time, index) => index === 0 || times[index - 1]! <= time) };
  }
}
