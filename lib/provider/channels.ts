import { channel } from "node:diagnostics_channel";

/**
 * What the provider's client tells whoever listens (lib/metrics.ts subscribes), through Node's diagnostics
 * channels: publishing costs nothing without a subscriber, and the client knows nothing of Prometheus.
 */

export type UpstreamEndpoint = "token" | "sale";
/** 2xx…5xx for an answer; `timeout` when none came in time; `error` when the connection failed. */
export type UpstreamStatusClass = "1xx" | "2xx" | "3xx" | "4xx" | "5xx" | "timeout" | "error";

export interface UpstreamRequestMessage {
  endpoint: UpstreamEndpoint;
  statusClass: UpstreamStatusClass;
  seconds: number;
}

export interface TokenExchangeMessage {
  /** `ok`, or the error code of the failure (lib/errors). */
  result: string;
}

/** Each request to the provider, once its answer was read (or it failed). */
export const upstreamRequests = channel("partner-sales:upstream-request");
/** Each client-credentials exchange, by result. */
export const tokenExchanges = channel("partner-sales:token-exchange");

export function statusClassOf(status: number): UpstreamStatusClass {
  return status >= 100 && status < 600 ? (`${Math.floor(status / 100)}xx` as UpstreamStatusClass) : "error";
}
