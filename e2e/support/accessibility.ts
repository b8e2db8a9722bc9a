import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** axe finds nothing on the page as it stands, once its title (so the navigation) has landed. */
export async function expectNoAxeViolations(page: Page) {
  await expect(page).toHaveTitle(/Partner Sales/);
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
}
