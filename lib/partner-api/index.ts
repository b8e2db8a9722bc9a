import "server-only";
import { getConfig } from "@/lib/env";
import { createPartnerApiClient, type PartnerApiClient } from "./client";

export { createPartnerApiClient, buildSaleBody, fieldsNamedIn } from "./client";
export type { PartnerApiClient, PartnerApiConfig, SaleFields } from "./client";
export type { SaleOutcome } from "./outcome";
export type { TokenStatus } from "./token";

// One client (and so one token cache) per (base URL, client id), kept across hot reloads in development.
const clients: Map<string, PartnerApiClient> = ((
  globalThis as { __partnerApiClients?: Map<string, PartnerApiClient> }
).__partnerApiClients ??= new Map());

export function partnerApi(): PartnerApiClient {
  const { partnerApi: config } = getConfig();
  const key = `${config.baseUrl}\n${config.clientId}`;
  let client = clients.get(key);
  if (!client) {
    client = createPartnerApiClient(config);
    clients.set(key, client);
  }
  return client;
}
