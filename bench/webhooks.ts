import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmptyDatabase } from "../scripts/test-postgres";
import { onEachDatabase } from "./lib/each-database";
import { missedWebhookTargets, writeWebhookResults, type WebhookFigures } from "./lib/webhooks-report";
import { runWorker, SERVER_CONDITIONS } from "./lib/worker";

// Issue 35's figures (`npm run bench:webhooks`; `npm run bench` runs it last): bench/webhooks-worker.ts on an empty
// PGlite, then on an empty database of a throwaway PostgreSQL server. The figures go to bench/results/webhooks.json
// and to their own section of bench/results/latest.md. BENCH_WEBHOOKS_ROUNDS and BENCH_WEBHOOKS_BACKLOG change the
// sizes (15 rounds of 100 sales, 5,000 events).
const root = join(import.meta.dirname, "..");
const figures: WebhookFigures[] = [];

await onEachDatabase(
  async (database, serverUrl) => {
    console.log(`\n▸ ${database}: webhooks`);
    const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-bench-webhooks-"));
    try {
      const databaseUrl = serverUrl ? await createEmptyDatabase(serverUrl, "bench_webhooks") : "";
      const figure = await runWorker<WebhookFigures>(
        root,
        "bench/webhooks-worker.ts",
        {
          BENCH_WEBHOOKS_DATABASE: database,
          PARTNER_API_BASE_URL: "",
          DATABASE_URL: databaseUrl,
          DATA_DIR: dataDir,
          AUTH_SECRET: "bench-webhooks-".padEnd(48, "b"),
          LOG_FILE: "",
        },
        SERVER_CONDITIONS.serverOnly,
      );
      const missed = missedWebhookTargets(figure);
      console.log(`  ${missed.length === 0 ? "every target held" : `missed: ${missed.join(", ")}`}`);
      figures.push(figure);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
  () =>
    writeWebhookResults(
      root,
      figures,
      `Measured by bench/webhooks.ts, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
    ),
);
