import "server-only";
import { AppError } from "@/lib/errors";
import { log as defaultLog } from "@/lib/log";
import { inSpan, noteOnSpan, SUBMISSION_ID } from "@/lib/tracing";
import { cleanText } from "@/lib/validation/text";
import {
  statusClassOf,
  upstreamRequests,
  type UpstreamEndpoint,
  type UpstreamRequestMessage,
} from "./channels";
import { isTimeout, providerFetch } from "./http-transport";
import { outcomeDetail, type SaleOutcome } from "./outcome";
import { TokenSource, type TokenDependencies, type TokenEndpointConfig } from "./token";
import {
  PARTNER_SALE_FIELDS,
  isSaleEnvelope,
  type PartnerSaleField,
  type PartnerSaleRequestBody,
} from "./types";

export interface ProviderConfig extends TokenEndpointConfig {
  salePath: string;
  partnerSource: string | undefined;
}

/** A validated sale in the form the upstream takes ("sent as"); `partnerSource` comes from configuration. */
export type SaleFields = Omit<PartnerSaleRequestBody, "partnerSource">;

// Errors that prove the request never left this machine.
const NOTHING_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  // TLS fails during the handshake, before a byte of the request is written.
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "EPROTO",
]);

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function buildSaleBody(sale: SaleFields, partnerSource: string | undefined): PartnerSaleRequestBody {
  const body: PartnerSaleRequestBody = {
    customerDocument: sale.customerDocument,
    customerEmail: sale.customerEmail,
    customerPhone: sale.customerPhone,
    customerName: sale.customerName,
    planId: sale.planId,
  };
  if (partnerSource) body.partnerSource = partnerSource;
  if (sale.externalId) body.externalId = sale.externalId;
  if (sale.birthDate) body.birthDate = sale.birthDate;
  return body;
}

/** The upstream names invalid fields in its message; pick out the ones it mentions. */
export function fieldsNamedIn(message: string, httpStatus?: number): PartnerSaleField[] {
  const fields = PARTNER_SALE_FIELDS.filter((field) => new RegExp(`\\b${field}\\b`, "i").test(message));
  // 422 is the unknown plan, named in words ("O plano informado não existe.", or in English "…plan does not…").
  if (httpStatus === 422 && fields.length === 0 && /\bplano?\b/i.test(message)) fields.push("planId");
  return fields;
}

export interface ProviderClient {
  /** `retry`: the same sale sent again after it failed with nothing sent (see TokenSource.getToken). */
  postSale(sale: SaleFields, context?: { submissionId?: string; retry?: boolean }): Promise<SaleOutcome>;
  /** Obtains a token ahead of the first sale; failures are logged by the token source and retried later. */
  warmUp(): Promise<void>;
  tokenStatus: TokenSource["status"];
}

/** `fetch` that times each request to the provider, by endpoint and how it ended (lib/provider/channels.ts). */
function timed(endpoint: UpstreamEndpoint, send: typeof fetch): typeof fetch {
  return async (input, init) => {
    const started = performance.now();
    const publish = (statusClass: UpstreamRequestMessage["statusClass"]) => {
      if (!upstreamRequests.hasSubscribers) return;
      const message: UpstreamRequestMessage = {
        endpoint,
        statusClass,
        seconds: (performance.now() - started) / 1000,
      };
      upstreamRequests.publish(message);
    };
    try {
      const response = await send(input, init);
      publish(statusClassOf(response.status));
      return response;
    } catch (error) {
      publish(isTimeout(error) ? "timeout" : "error");
      throw error;
    }
  };
}

export function createProviderClient(
  config: ProviderConfig,
  overrides: Partial<TokenDependencies> = {},
): ProviderClient {
  const deps: TokenDependencies = {
    fetch: providerFetch,
    now: Date.now,
    random: Math.random,
    log: defaultLog,
    ...overrides,
  };
  const tokens = new TokenSource(config, { ...deps, fetch: timed("token", deps.fetch) });
  const saleFetch = timed("sale", deps.fetch);
  const saleUrl = `${config.baseUrl}${config.salePath}`;

  type Attempt =
    { kind: "answered"; response: Response; token: string } | { kind: "outcome"; outcome: SaleOutcome };

  async function post(body: string, retry: boolean, submissionId?: string): Promise<Attempt> {
    let token: string;
    try {
      token = await inSpan("partner_api.token", {}, () => tokens.getToken({ retry }));
    } catch (error) {
      if (error instanceof AppError)
        return { kind: "outcome", outcome: { status: "failed", code: error.code } };
      throw error;
    }
    try {
      const response = await inSpan(
        "partner_api.sale_request",
        submissionId ? { [SUBMISSION_ID]: submissionId } : {},
        async () => {
          const response = await saleFetch(saleUrl, {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              Accept: "application/json",
              Authorization: `Bearer ${token}`,
            },
            body,
            cache: "no-store",
            signal: AbortSignal.timeout(config.timeoutMs),
          });
          noteOnSpan({ "http.response.status_code": response.status });
          return response;
        },
      );
      return { kind: "answered", response, token };
    } catch (error) {
      if (isTimeout(error)) {
        return { kind: "outcome", outcome: { status: "unknown", reason: "timeout" } };
      }
      const code = errorCode(error);
      if (code && NOTHING_SENT_CODES.has(code)) {
        return { kind: "outcome", outcome: { status: "failed", code: "partner_api.unreachable" } };
      }
      return { kind: "outcome", outcome: { status: "unknown", reason: "connection-lost" } };
    }
  }

  async function interpret(response: Response): Promise<SaleOutcome> {
    const httpStatus = response.status;
    let envelope: unknown;
    try {
      envelope = await response.json();
    } catch {
      envelope = undefined;
    }
    if (httpStatus >= 500) return { status: "unknown", reason: "server-error", httpStatus };
    if (!isSaleEnvelope(envelope)) return { status: "unknown", reason: "malformed-answer", httpStatus };
    // Shown to the agent and stored: the provider's words, without control characters, at a sensible length.
    const message = typeof envelope.message === "string" ? cleanText(envelope.message, 1_000) : "";
    if (response.ok && envelope.success && envelope.data) return { status: "accepted", httpStatus, message };
    if (response.ok || (httpStatus >= 400 && httpStatus < 500)) {
      return { status: "rejected", httpStatus, message, fields: fieldsNamedIn(message, httpStatus) };
    }
    return { status: "unknown", reason: "malformed-answer", httpStatus };
  }

  async function postSale(
    sale: SaleFields,
    context: { submissionId?: string; retry?: boolean } = {},
  ): Promise<SaleOutcome> {
    const startedAt = deps.now();
    const body = JSON.stringify(buildSaleBody(sale, config.partnerSource));
    const retry = context.retry ?? false;
    let attempt = await post(body, retry, context.submissionId);
    if (attempt.kind === "answered" && attempt.response.status === 401) {
      // A refused token (revoked, or expired early) says nothing about the sale: renew once, retry once.
      await attempt.response.body?.cancel();
      tokens.invalidate(attempt.token);
      attempt = await post(body, retry, context.submissionId);
      if (attempt.kind === "answered" && attempt.response.status === 401) {
        await attempt.response.body?.cancel();
        deps.log.error("partner_api.sale_unauthorized", {
          submissionId: context.submissionId,
          clientId: config.clientId,
          action:
            "A fresh token was refused by the sale endpoint: check PARTNER_SALE_PATH and the client's rights.",
        });
        attempt = {
          kind: "outcome",
          outcome: { status: "failed", code: "partner_api.unauthorized", httpStatus: 401 },
        };
      }
    }
    const outcome = attempt.kind === "outcome" ? attempt.outcome : await interpret(attempt.response);
    deps.log.info("partner_api.sale", {
      submissionId: context.submissionId,
      status: outcome.status,
      httpStatus: "httpStatus" in outcome ? (outcome.httpStatus ?? null) : null,
      detail: outcomeDetail(outcome),
      durationMs: deps.now() - startedAt,
    });
    return outcome;
  }

  return {
    postSale,
    warmUp: () =>
      tokens.getToken().then(
        () => undefined,
        () => undefined,
      ),
    tokenStatus: () => tokens.status(),
  };
}
