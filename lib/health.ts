import "server-only";
import { getDb } from "./db";
import { pingDatabase } from "./db/queries/health";
import { getConfig } from "./env";
import { log } from "./log";
import { provider, type TokenStatus } from "./provider";

export interface Health {
  status: "ok" | "degraded";
  db: "ok" | "down";
  upstream: {
    mode: "sandbox" | "live";
    tokenCached: boolean;
    tokenExpiresInSeconds: number | null;
    lastTokenExchange: TokenStatus["lastExchange"];
  };
}

const DB_CHECK_TIMEOUT_MS = 2_000;

/**
 * A database read for an operator's check (readiness, a metrics scrape): a database that does not answer is
 * "down" in 2 s, not a hung probe.
 */
export function withinCheckTimeout<T>(read: Promise<T>): Promise<T> {
  return Promise.race([
    read,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("timeout")), DB_CHECK_TIMEOUT_MS).unref(),
    ),
  ]);
}

async function checkDatabase(): Promise<Health["db"]> {
  try {
    await withinCheckTimeout(getDb().then(pingDatabase));
    return "ok";
  } catch (error) {
    log.error("health.db_down", { error });
    return "down";
  }
}

export async function checkHealth(): Promise<Health> {
  const config = getConfig();
  const token = provider().tokenStatus();
  const db = await checkDatabase();
  const upstreamDown = token.lastExchange !== null && !token.lastExchange.ok;
  return {
    status: db === "ok" && !upstreamDown ? "ok" : "degraded",
    db,
    upstream: {
      mode: config.mode,
      tokenCached: token.cached,
      tokenExpiresInSeconds: token.expiresInSeconds,
      lastTokenExchange: token.lastExchange,
    },
  };
}
