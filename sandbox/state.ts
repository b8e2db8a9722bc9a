import type { FaultKind, Target } from "./faults";
import { TokenStore } from "./token-store";

export const MAX_RECORDED_REQUESTS = 1000;

export interface RecordedRequest {
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
}

export interface AcceptedSale {
  receivedAt: string;
  body: Record<string, unknown>;
}

export interface Stats {
  tokenRequests: number;
  tokensIssued: number;
  saleRequests: number;
  salesAccepted: number;
  saleResponses: Record<string, number>;
  tokenResponses: Record<string, number>;
}

function emptyStats(): Stats {
  return {
    tokenRequests: 0,
    tokensIssued: 0,
    saleRequests: 0,
    salesAccepted: 0,
    saleResponses: {},
    tokenResponses: {},
  };
}

export class SandboxState {
  readonly tokens = new TokenStore();
  stats = emptyStats();
  sales: AcceptedSale[] = [];
  requests: RecordedRequest[] = [];
  faults: Record<Target, FaultKind[]> = { sale: [], token: [] };
  latencyMs: Record<Target, number> = { sale: 0, token: 0 };
  tokenLifetimeSeconds: number;
  /** Plans the provider stopped selling since the partner's catalogue was made (lower-case ids). */
  withdrawnPlanIds = new Set<string>();

  constructor(readonly defaultTokenLifetimeSeconds: number) {
    this.tokenLifetimeSeconds = defaultTokenLifetimeSeconds;
  }

  // Issued tokens survive a reset on purpose: revoking them is a separate control.
  reset(): void {
    this.stats = emptyStats();
    this.sales = [];
    this.requests = [];
    this.clearFaults();
    this.tokenLifetimeSeconds = this.defaultTokenLifetimeSeconds;
    this.withdrawnPlanIds.clear();
  }

  clearFaults(): void {
    this.faults = { sale: [], token: [] };
    this.latencyMs = { sale: 0, token: 0 };
  }

  countRequest(target: Target): void {
    if (target === "sale") this.stats.saleRequests++;
    else this.stats.tokenRequests++;
  }

  countResponse(target: Target, status: number | "timeout"): void {
    const responses = target === "sale" ? this.stats.saleResponses : this.stats.tokenResponses;
    responses[status] = (responses[status] ?? 0) + 1;
  }

  recordRequest(request: RecordedRequest): void {
    this.requests.push(request);
    if (this.requests.length > MAX_RECORDED_REQUESTS) this.requests.shift();
  }

  takeFault(target: Target): FaultKind | undefined {
    return this.faults[target].shift();
  }

  hasSale(customerDocument: string, planId: string): boolean {
    return this.sales.some(
      ({ body }) =>
        body.customerDocument === customerDocument &&
        String(body.planId).toLowerCase() === planId.toLowerCase(),
    );
  }

  acceptSale(sale: AcceptedSale): void {
    this.sales.push(sale);
    this.stats.salesAccepted++;
  }
}
