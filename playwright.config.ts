import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

const APP_PORT = 3210;
const SANDBOX_PORT = 4210;
const SYSTEM_CHROMIUM = "/usr/bin/chromium";

export const e2ePorts = { app: APP_PORT, sandbox: SANDBOX_PORT } as const;

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: [
    ["list"],
    ["json", { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? ".reports/playwright.json" }],
  ],
  use: {
    baseURL: `http://localhost:${APP_PORT}`,
    locale: "pt-BR",
    timezoneId: "America/Sao_Paulo",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: existsSync(SYSTEM_CHROMIUM)
          ? {
              executablePath: SYSTEM_CHROMIUM,
              args: [
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
              ],
            }
          : {},
      },
    },
  ],
  webServer: {
    command: "node_modules/.bin/tsx scripts/start.ts",
    url: `http://localhost:${APP_PORT}/api/health`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      NEXT_TELEMETRY_DISABLED: "1",
      PORT: String(APP_PORT),
      SANDBOX_PORT: String(SANDBOX_PORT),
      DATA_DIR: ".data/e2e",
      PARTNER_API_BASE_URL: "",
      DATABASE_URL: "",
    },
  },
});
