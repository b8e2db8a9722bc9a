import { expect, type Page } from "@playwright/test";

/** `/sales`: the history, and its filter chips. */
export class SalesHistoryPage {
  constructor(readonly page: Page) {}

  readonly heading = () => this.page.getByRole("heading", { level: 1 });
  readonly row = (text: string) => this.page.getByRole("row").filter({ hasText: text });
  readonly filter = (name: string) =>
    this.page
      .getByRole("navigation", { name: "Filtrar por situação" })
      .getByRole("link", { name, exact: true });

  async goto(query = "") {
    await this.page.goto(`/sales${query}`);
    await expect(this.heading()).toBeVisible();
  }
}
