import "server-only";
import { getConfig } from "./env";
import { partnerApi, type TokenStatus } from "./partner-api";

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

export async function checkHealth(): Promise<Health> {
  const config = getConfig();
  const token = partnerApi().tokenStatus();
  const upstreamDown = token.lastExchange !== null && !token.lastExchange.ok;
  return {
    status: upstreamDown ? "degraded" : "ok",
    db: "ok",
    upstream: {
      mode: config.mode,
      tokenCached: token.cached,
      tokenExpiresInSeconds: token.expiresInSeconds,
      lastTokenExchange: token.lastExchange,
    },
  };
}
