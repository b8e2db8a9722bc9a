import { readFile } from "node:fs/promises";
import { expect, type Page } from "@playwright/test";

/** `/sales`: the history, its filter chips and its CSV export. */
export class SalesHistoryPage {
  constructor(readonly page: Page) {}

  readonly heading = () => this.page.getByRole("heading", { level: 1 });
  readonly row = (text: string) => this.page.getByRole("row").filter({ hasText: text });
  readonly filter = (name: string) =>
    this.page
      .getByRole("navigation", { name: "Filtrar por situação" })
      .getByRole("link", { name, exact: true });
  readonly exportLink = () => this.page.getByRole("link", { name: "Exportar CSV" });

  async goto(query = "") {
    await this.page.goto(`/sales${query}`);
    await expect(this.heading()).toBeVisible();
  }

  /** Clicks "Exportar CSV" and reads the file the browser saves. */
  async exportCsv(): Promise<{ fileName: string; bytes: Buffer }> {
    const [download] = await Promise.all([this.page.waitForEvent("download"), this.exportLink().click()]);
    return { fileName: download.suggestedFilename(), bytes: await readFile(await download.path()) };
  }
}
