import "server-only";
import { ConfigError } from "./config/parse";
import { getConfig } from "./env";
import { log } from "./log";
import { partnerApi } from "./partner-api";

/** Runs once when the Next.js server boots: a wrong configuration stops it with one clear line. */
export async function startServer(): Promise<void> {
  try {
    const config = getConfig();
    log.info("server.config", {
      mode: config.mode,
      upstream: config.partnerApi.baseUrl,
      clientId: config.partnerApi.clientId,
      plans: config.plans?.length ?? 0,
      database: config.databaseUrl ? "postgresql" : "pglite",
    });
    // A wrong credential shows up in the operator's log at deploy time, not at the first customer's sale.
    void partnerApi().warmUp();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
