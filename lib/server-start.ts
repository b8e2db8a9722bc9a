import "server-only";
import { seedDemoAccounts } from "./auth/demo-accounts";
import { ConfigError } from "./config/parse";
import { getDb } from "./db";
import { markStalePendingUnknown } from "./db/queries/sales";
import { deferredSubmissionIds } from "./sales/outcome-outbox";
import { getConfig } from "./env";
import { log } from "./log";
import { partnerApi } from "./partner-api";

function stop(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** Runs once when the Next.js server boots: configuration, database and upstream are checked before traffic. */
export async function startServer(): Promise<void> {
  let config;
  try {
    config = getConfig();
  } catch (error) {
    if (error instanceof ConfigError) stop(`Configuration error: ${error.message}`);
    throw error;
  }
  log.info("server.config", {
    mode: config.mode,
    upstream: config.partnerApi.baseUrl,
    clientId: config.partnerApi.clientId,
    plans: config.plans?.length ?? 0,
    database: config.databaseUrl ? "postgresql" : "pglite",
  });
  if (config.oidc?.autoCreate && config.oidc.allowedEmailDomains.length === 0) {
    // Fine for the partner's own directory; on a shared IdP (Google, a realm with self-registration) it lets in
    // anyone with an account there, so the operator reads it once at every start.
    log.warn("server.oidc_open_enrolment", {
      issuer: config.oidc.issuer,
      hint: "OIDC_AUTO_CREATE=on without OIDC_ALLOWED_EMAIL_DOMAINS: every account at this IdP with a verified e-mail becomes an agent",
    });
  }

  try {
    const db = await getDb();
    if (config.mode === "sandbox") await seedDemoAccounts(db);
    // Sales left pending by a process that stopped mid-call may exist upstream: a supervisor checks them.
    // A submission can take a token exchange and a sale, twice after a 401: only older rows are orphans.
    const orphanAfterMs = 4 * config.partnerApi.timeoutMs + 5_000;
    const sweep = async () => {
      const interrupted = await markStalePendingUnknown(db, orphanAfterMs, deferredSubmissionIds());
      if (interrupted > 0) log.warn("sales.interrupted_marked_unknown", { count: interrupted });
    };
    await sweep();
    setInterval(
      () => void sweep().catch((error) => log.error("sales.sweep_failed", { error })),
      orphanAfterMs,
    ).unref();
  } catch (error) {
    stop(`Database error: ${error instanceof Error ? error.message : String(error)}`);
  }

  // A wrong credential shows up in the operator's log at deploy time, not at the first customer's sale.
  void partnerApi().warmUp();
}
