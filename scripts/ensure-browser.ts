import { existsSync } from "node:fs";
import { aptInstall, runCommand, TEST_PROGRAMS } from "./debian-packages";

export const SYSTEM_CHROMIUM = TEST_PROGRAMS.chromium.path;
/** What this machine's closed network and a root user need from Chromium (no sandbox, no calls home). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Launch options for Playwright: Debian's Chromium with the flags above where it is installed, else Playwright's own. */
export function chromiumLaunchOptions(): { executablePath?: string; args?: string[] } {
  return existsSync(SYSTEM_CHROMIUM) ? { executablePath: SYSTEM_CHROMIUM, args: CHROMIUM_ARGS } : {};
}

/**
 * Playwright drives Debian's Chromium where it can (this machine and CI cannot download browser builds);
 * a developer's laptop without it falls back to Playwright's own browser.
 */
export function ensureBrowser(): void {
  if (existsSync(SYSTEM_CHROMIUM)) return;
  if (aptInstall(["chromium"]) && existsSync(SYSTEM_CHROMIUM)) return;
  console.warn("Could not install Debian's chromium; trying Playwright's own browser.");
  if (!runCommand("node_modules/.bin/playwright", ["install", "chromium"])) {
    throw new Error("No browser for the end-to-end tests: install chromium (apt-get install chromium).");
  }
}

if (import.meta.url === `file://${process.argv[1]}`) ensureBrowser();
