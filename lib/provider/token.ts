import "server-only";
import { AppError, isConfigurationFailure, type ErrorCode } from "@/lib/errors";
import type { log as defaultLog } from "@/lib/log";
import { inSpan } from "@/lib/tracing";
import { tokenExchanges, type TokenExchangeMessage } from "./channels";
import { isTimeout } from "./http-transport";
import { isTokenErrorBody, isTokenSuccessBody } from "./types";

export interface TokenEndpointConfig {
  baseUrl: string;
  tokenPath: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
}

export interface TokenDependencies {
  fetch: typeof fetch;
  now: () => number;
  random: () => number;
  log: Pick<typeof defaultLog, "info" | "warn" | "error">;
}

export interface TokenStatus {
  cached: boolean;
  expiresInSeconds: number | null;
  lastExchange: { at: string; ok: boolean; code?: ErrorCode } | null;
}

interface CachedToken {
  value: string;
  refreshAt: number;
  expiresAt: number;
}

const DEFAULT_LIFETIME_SECONDS = 3600;
const EARLY_RENEWAL_MS = 5 * 60_000;
const TRANSIENT_BACKOFF = { baseMs: 1_000, maxMs: 60_000 };
const CONFIGURATION_BACKOFF = { baseMs: 15_000, maxMs: 5 * 60_000 };

function publishExchange(result: TokenExchangeMessage["result"]) {
  if (tokenExchanges.hasSubscribers) tokenExchanges.publish({ result } satisfies TokenExchangeMessage);
}

/** Renew 5 minutes before expiry, or at half the lifetime when the token lives less than 10 minutes. */
export function renewalDelayMs(lifetimeSeconds: number): number {
  const lifetimeMs = lifetimeSeconds * 1000;
  return lifetimeMs - Math.min(EARLY_RENEWAL_MS, lifetimeMs / 2);
}

/** The client-credentials grant (RFC 6749 §4.4) as the provider takes it: the credentials in the form body. */
export function clientCredentialsRequest(config: TokenEndpointConfig): { url: string; init: RequestInit } {
  return {
    url: `${config.baseUrl}${config.tokenPath}`,
    init: {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: config.clientId,
        client_secret: config.clientSecret,
      }),
      cache: "no-store",
      signal: AbortSignal.timeout(config.timeoutMs),
    },
  };
}

export type TokenResponse =
  | { ok: true; accessToken: string; lifetimeSeconds: number }
  | { ok: false; code: "partner_api.invalid_client"; httpStatus: number }
  | { ok: false; code: "partner_api.token_rejected"; httpStatus: number; upstreamError: string | null }
  | {
      ok: false;
      code: "partner_api.token_unavailable";
      httpStatus: number;
      reason: "malformed" | "server-error";
    };

/**
 * What the token endpoint's answer means, from its status and parsed body alone (`undefined` when it was not
 * JSON). A token without a usable lifetime lives an hour. `invalid_client` is the credentials, whatever the status;
 * other 4xx answers (but 429) mean the request itself is wrong; 429, 5xx and malformed answers are transient.
 */
export function processTokenResponse(status: number, body: unknown): TokenResponse {
  if (status >= 200 && status < 300 && isTokenSuccessBody(body)) {
    const lifetimeSeconds =
      Number.isFinite(body.expires_in) && body.expires_in > 0 ? body.expires_in : DEFAULT_LIFETIME_SECONDS;
    return { ok: true, accessToken: body.access_token, lifetimeSeconds };
  }
  const upstreamError = isTokenErrorBody(body) ? body.error : null;
  if (upstreamError === "invalid_client")
    return { ok: false, code: "partner_api.invalid_client", httpStatus: status };
  if (status >= 400 && status < 500 && status !== 429) {
    return { ok: false, code: "partner_api.token_rejected", httpStatus: status, upstreamError };
  }
  return {
    ok: false,
    code: "partner_api.token_unavailable",
    httpStatus: status,
    reason: status >= 200 && status < 300 ? "malformed" : "server-error",
  };
}

/**
 * The client-credentials token of one (base URL, client id): cached, renewed ahead of expiry, one exchange
 * in flight at a time whatever the number of callers, and failed exchanges backed off with jitter.
 */
export class TokenSource {
  private token: CachedToken | undefined;
  private inFlight: Promise<CachedToken> | undefined;
  private failures = 0;
  private retryAt = 0;
  private lastFailure: AppError | undefined;
  private lastExchange: TokenStatus["lastExchange"] = null;

  constructor(
    private readonly config: TokenEndpointConfig,
    private readonly deps: TokenDependencies,
  ) {}

  /**
   * After a failed exchange callers wait out the back-off, except a `retry`: someone sending again the sale that
   * was answered "nothing was sent, try again". That one gets a fresh exchange (still one in flight at a time),
   * unless the last failure was the credentials themselves, which a retry cannot mend.
   */
  async getToken({ retry = false }: { retry?: boolean } = {}): Promise<string> {
    const now = this.deps.now();
    const current = this.token;
    if (current && now < current.refreshAt) return current.value;
    try {
      return (await this.exchange(retry)).value;
    } catch (error) {
      // Renewal is early on purpose: while the old token is still valid, a failed renewal costs nothing.
      if (current && this.token === current && this.deps.now() < current.expiresAt) return current.value;
      throw error;
    }
  }

  /** Drops a token the upstream refused, unless a newer one has already replaced it. */
  invalidate(value: string): void {
    if (this.token?.value === value) this.token = undefined;
  }

  status(): TokenStatus {
    const now = this.deps.now();
    const valid = this.token && now < this.token.expiresAt ? this.token : undefined;
    return {
      cached: Boolean(valid),
      expiresInSeconds: valid ? Math.floor((valid.expiresAt - now) / 1000) : null,
      lastExchange: this.lastExchange,
    };
  }

  private exchange(retry: boolean): Promise<CachedToken> {
    if (this.inFlight) return this.inFlight;
    const failure = this.lastFailure;
    if (failure && this.deps.now() < this.retryAt && (!retry || isConfigurationFailure(failure.code))) {
      return Promise.reject(failure);
    }
    this.inFlight = inSpan("partner_api.token_exchange", {}, () => this.requestToken()).then(
      (token) => {
        this.token = token;
        this.failures = 0;
        this.lastFailure = undefined;
        this.recordExchange(true);
        return token;
      },
      (error: unknown) => {
        const failure =
          error instanceof AppError
            ? error
            : new AppError("partner_api.token_unavailable", "Token exchange failed", { cause: error });
        this.backOff(failure);
        this.recordExchange(false, failure.code);
        throw failure;
      },
    );
    const settle = () => {
      this.inFlight = undefined;
    };
    this.inFlight.then(settle, settle);
    return this.inFlight;
  }

  private backOff(failure: AppError) {
    const { baseMs, maxMs } = isConfigurationFailure(failure.code)
      ? CONFIGURATION_BACKOFF
      : TRANSIENT_BACKOFF;
    this.failures += 1;
    const ceiling = Math.min(maxMs, baseMs * 2 ** (this.failures - 1));
    this.retryAt = this.deps.now() + ceiling / 2 + (this.deps.random() * ceiling) / 2;
    this.lastFailure = failure;
  }

  private recordExchange(ok: boolean, code?: ErrorCode) {
    this.lastExchange = { at: new Date(this.deps.now()).toISOString(), ok, ...(code ? { code } : {}) };
    publishExchange(code ?? "ok");
  }

  private async requestToken(): Promise<CachedToken> {
    const { clientId } = this.config;
    const startedAt = this.deps.now();
    const { url, init } = clientCredentialsRequest(this.config);
    let response: Response;
    try {
      response = await this.deps.fetch(url, init);
    } catch (error) {
      const timedOut = isTimeout(error);
      this.deps.log.warn("partner_api.token_exchange_failed", {
        clientId,
        reason: timedOut ? "timeout" : "unreachable",
      });
      throw new AppError(
        timedOut ? "partner_api.token_unavailable" : "partner_api.token_unreachable",
        timedOut ? "The token endpoint did not answer in time" : "The token endpoint could not be reached",
        { cause: error },
      );
    }

    const body: unknown = await response.json().catch(() => undefined);
    const result = processTokenResponse(response.status, body);
    if (result.ok) {
      this.deps.log.info("partner_api.token_issued", {
        clientId,
        expiresInSeconds: result.lifetimeSeconds,
        durationMs: this.deps.now() - startedAt,
      });
      return {
        value: result.accessToken,
        refreshAt: startedAt + renewalDelayMs(result.lifetimeSeconds),
        expiresAt: startedAt + result.lifetimeSeconds * 1000,
      };
    }
    const fields = { clientId, httpStatus: result.httpStatus };
    switch (result.code) {
      case "partner_api.invalid_client":
        this.deps.log.error("partner_api.invalid_client", {
          ...fields,
          action:
            "The provider refused the client credentials: check PARTNER_CLIENT_ID and PARTNER_CLIENT_SECRET.",
        });
        throw new AppError(result.code, "The provider refused the client credentials");
      case "partner_api.token_rejected":
        this.deps.log.error("partner_api.token_rejected", {
          ...fields,
          upstreamError: result.upstreamError,
          action:
            "The token endpoint refused the request: check PARTNER_API_BASE_URL and PARTNER_TOKEN_PATH.",
        });
        throw new AppError(result.code, `The token endpoint answered ${result.httpStatus}`);
      case "partner_api.token_unavailable":
        this.deps.log.warn("partner_api.token_exchange_failed", { ...fields, reason: result.reason });
        throw new AppError(result.code, `The token endpoint answered ${result.httpStatus}`);
    }
  }
}
