import { readFile } from "node:fs/promises";
import { expect, type Locator, type Page } from "@playwright/test";

/** `/sales`: the history, its filter chips and its CSV export. */
export class SalesHistoryPage {
  constructor(readonly page: Page) {}

  readonly heading = () => this.page.getByRole("heading", { level: 1 });
  readonly row = (text: string) => this.page.getByRole("row").filter({ hasText: text });
  /** A status chip, "A confirmar (3)", by its label. */
  readonly filter = (name: string) =>
    this.page
      .getByRole("navigation", { name: "Filtrar por situação" })
      .getByRole("link", { name: new RegExp(`^${name}( \\((mais de )?[\\d.]+\\))?$`) });
  readonly search = () => this.page.getByRole("searchbox", { name: "Buscar" });
  readonly agent = () => this.page.getByLabel("Agente", { exact: true });
  readonly from = () => this.page.getByLabel("De", { exact: true });
  readonly to = () => this.page.getByLabel("Até", { exact: true });
  readonly apply = () => this.page.getByRole("button", { name: "Filtrar" });
  readonly pages = () => this.page.getByRole("navigation", { name: "Páginas da lista" });
  readonly newer = () => this.pages().getByRole("link", { name: "← Mais recentes" });
  readonly older = () => this.pages().getByRole("link", { name: "Mais antigas →" });

  /** The protocols of the page's rows, top to bottom. */
  async protocols(): Promise<string[]> {
    return this.page.locator("table tbody tr td:nth-child(3)").allInnerTexts();
  }

  /** The chip's count: "A confirmar (1.234)" → 1234. */
  async count(name: string): Promise<number> {
    const text = await this.filter(name).innerText();
    return Number(/\(([\d.]+)\)/.exec(text)![1]!.replaceAll(".", ""));
  }

  /** Follows a paging link and waits for the page it names. */
  async follow(link: Locator) {
    const next = await link.getAttribute("href");
    await link.click();
    await this.page.waitForURL((url) => `${url.pathname}${url.search}` === next);
  }

  /** Every protocol from this page to the last, following "Mais antigas"; `between` runs before each next page. */
  async protocolsToTheEnd(between: () => Promise<unknown> = async () => {}): Promise<string[]> {
    const seen = await this.protocols();
    while (await this.older().isVisible()) {
      await between();
      await this.follow(this.older());
      seen.push(...(await this.protocols()));
    }
    return seen;
  }
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
