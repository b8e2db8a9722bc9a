import { defineConfig, devices } from "@playwright/test";
import { LIMITS_LIFTED } from "./bench/lib/processes";
import { chromiumLaunchOptions } from "./scripts/ensure-browser";
import {
  ALLOWED_PORTAL,
  E2E_DATA_DIR,
  E2E_LOG_FILE,
  E2E_PORTS,
  E2E_UPSTREAM_TIMEOUT_MS,
  E2E_METRICS_TOKEN,
  PASSWORDS_ONLY,
} from "./e2e/support/environment";
import { writePortalsFile } from "./e2e/support/portal-keys";

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  // A hang detector, not a speed check (speed lives in bench/): the tests with two or three desks take 15–20 s on
  // two idle cores and twice that on a busy machine, which 30 s did not cover (seen once in a fresh-clone run).
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [
    ["list"],
    ["json", { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? ".reports/playwright.json" }],
  ],
  use: {
    baseURL: `http://localhost:${E2E_PORTS.app}`,
    locale: "pt-BR",
    timezoneId: "America/Sao_Paulo",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      testIgnore: /log-lines\.spec\.ts/,
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: chromiumLaunchOptions(),
      },
    },
    // Reads the log of the whole run, so it runs once every other spec has.
    { name: "log", testMatch: /log-lines\.spec\.ts/, dependencies: ["chromium"] },
  ],
  webServer: {
    command: "node --import tsx scripts/start.ts",
    url: `http://localhost:${E2E_PORTS.app}/api/health`,
    reuseExistingServer: false,
    timeout: 240_000,
    // The app's and sandbox's log lines go to LOG_FILE (specs read it); start-up errors still show on stderr.
    stdout: "ignore",
    stderr: "pipe",
    env: {
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(E2E_PORTS.app),
      SANDBOX_PORT: String(E2E_PORTS.sandbox),
      DATA_DIR: E2E_DATA_DIR,
      LOG_FILE: E2E_LOG_FILE,
      PARTNER_API_TIMEOUT_MS: String(E2E_UPSTREAM_TIMEOUT_MS),
      EMBED_ALLOWED_ORIGINS: ALLOWED_PORTAL,
      EMBED_PORTALS_FILE: writePortalsFile(import.meta.dirname),
      EMBED_SSO_SECRET: "",
      METRICS_TOKEN: E2E_METRICS_TOKEN,
      // Every spec sells and reads as the demo accounts, faster than a person: e2e/limits.spec.ts tests the ceilings.
      ...LIMITS_LIFTED,
      PARTNER_API_BASE_URL: "",
      DATABASE_URL: "",
      // Passwords, no OIDC: e2e/oidc.spec.ts starts instances of its own with its IdP.
      ...PASSWORDS_ONLY,
    },
  },
});
