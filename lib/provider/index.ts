import "server-only";
import { getConfig } from "@/lib/env";
import { createProviderClient, type ProviderClient } from "./client";

export { createProviderClient, buildSaleBody, fieldsNamedIn } from "./client";
export type { ProviderClient, ProviderConfig, SaleFields } from "./client";
export type { SaleOutcome } from "./outcome";
export type { TokenStatus } from "./token";

// One client (and so one token cache) per (base URL, client id), kept across hot reloads in development.
const clients: Map<string, ProviderClient> = ((
  globalThis as { __partnerSalesProviderClients?: Map<string, ProviderClient> }
).__partnerSalesProviderClients ??= new Map());

export function provider(): ProviderClient {
  const { provider: config } = getConfig();
  const key = `${config.baseUrl}\n${config.clientId}`;
  let client = clients.get(key);
  if (!client) {
    client = createProviderClient(config);
    clients.set(key, client);
  }
  return client;
}
