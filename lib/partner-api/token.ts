import "server-only";
import { AppError, isConfigurationFailure, type ErrorCode } from "@/lib/errors";
import type { log as defaultLog } from "@/lib/log";
import { inSpan } from "@/lib/tracing";
import { tokenExchanges, type TokenExchangeMessage } from "./channels";
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
        publishExchange("ok");
        return token;
      },
      (error: unknown) => {
        const failure =
          error instanceof AppError
            ? error
            : new AppError("partner_api.token_unavailable", "Token exchange failed", { cause: error });
        this.backOff(failure);
        this.recordExchange(false, failure.code);
        publishExchange(failure.code);
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
  }

  private async requestToken(): Promise<CachedToken> {
    const { baseUrl, tokenPath, clientId, clientSecret, timeoutMs } = this.config;
    const startedAt = this.deps.now();
    let response: Response;
    try {
      response = await this.deps.fetch(`${baseUrl}${tokenPath}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: clientId,
          client_secret: clientSecret,
        }),
        cache: "no-store",
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
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
    if (response.ok && isTokenSuccessBody(body)) {
      const lifetime =
        Number.isFinite(body.expires_in) && body.expires_in > 0 ? body.expires_in : DEFAULT_LIFETIME_SECONDS;
      this.deps.log.info("partner_api.token_issued", {
        clientId,
        expiresInSeconds: lifetime,
        durationMs: this.deps.now() - startedAt,
      });
      return {
        value: body.access_token,
        refreshAt: startedAt + renewalDelayMs(lifetime),
        expiresAt: startedAt + lifetime * 1000,
      };
    }

    const upstreamError = isTokenErrorBody(body) ? body.error : undefined;
    if (upstreamError === "invalid_client") {
      this.deps.log.error("partner_api.invalid_client", {
        clientId,
        httpStatus: response.status,
        action:
          "The provider refused the client credentials: check PARTNER_CLIENT_ID and PARTNER_CLIENT_SECRET.",
      });
      throw new AppError("partner_api.invalid_client", "The provider refused the client credentials");
    }
    // 429 (rate limited) is transient, like a 5xx; other 4xx answers mean the request itself is wrong.
    if (response.status >= 400 && response.status < 500 && response.status !== 429) {
      this.deps.log.error("partner_api.token_rejected", {
        clientId,
        httpStatus: response.status,
        upstreamError: upstreamError ?? null,
        action: "The token endpoint refused the request: check PARTNER_API_BASE_URL and PARTNER_TOKEN_PATH.",
      });
      throw new AppError("partner_api.token_rejected", `The token endpoint answered ${response.status}`);
    }
    this.deps.log.warn("partner_api.token_exchange_failed", {
      clientId,
      httpStatus: response.status,
      reason: response.ok ? "malformed" : "server-error",
    });
    throw new AppError("partner_api.token_unavailable", `The token endpoint answered ${response.status}`);
  }
}
