/**
 * The one error vocabulary: a stable code for programs, the HTTP status it answers and what a person reads
 * (pt-BR). Routes, actions, the body limits and the sale outcomes all choose their words here, so internals never
 * leak into a response and one condition reads the same everywhere. Client-safe: plain data, no server import.
 * The messages the browser shows by itself live beside it (embed.ts, not-confirmed.ts), so that a page carries
 * those and not this whole table.
 */
import { EMBED_ERROR_MESSAGES, type EmbedErrorCode } from "./embed";
import { NOT_CONFIRMED_MESSAGE } from "./not-confirmed";

export type RequestErrorCode =
  | "unauthorized"
  | "invalid_credentials"
  | "cross_site"
  /** A header only Auth.js's own client sends, at a route that signs in (lib/http/auth-js-header.ts). */
  | "header_refused"
  | "payload_too_large"
  | "length_required"
  | "unsupported_media_type"
  | "invalid_json"
  | "invalid_fields"
  | "idempotency_key_required"
  | "idempotency_key_in_use"
  | "stale_form"
  /** The offer script the form showed is not the plan's any more (the catalogue changed): nothing sent. */
  | "script_changed"
  | "not_confirmed"
  | "busy"
  /** A limit on requests of one kind (lib/dal/limits.ts): 429 with Retry-After. */
  | "rate_limited"
  /** The person's previous export is still being downloaded (one at a time): 429 with Retry-After. */
  | "export_in_progress"
  /** This server is already streaming as many exports as it may: 429 with Retry-After. */
  | "exports_busy"
  | "password_sign_in_off"
  /** A password sign-in's next steps (second factor, new password) asked for after they expired or were done. */
  | "steps_expired"
  | "sign_in_unavailable"
  | "metrics_token_required"
  | "metrics_off"
  /** /api/v1 without `Authorization: Bearer <API key>`: 401 with WWW-Authenticate. */
  | "api_key_required"
  /** An API key that is unknown, revoked, expired or not what was issued: 401, one code for all (the log says which). */
  | "api_key_invalid"
  /** A live API key without the scope the endpoint needs: 403. */
  | "insufficient_scope"
  /** A path under /api/v1 that names no endpoint: 404 in the API's JSON shape. */
  | "api_not_found"
  /** An /api/v1 endpoint asked with a method it does not answer: 405 with Allow. */
  | "method_not_allowed"
  /** GET /api/v1/sales/{submissionId} for a sale the ledger does not hold (or an id that is none). */
  | "sale_not_found"
  /** GET /api/v1/sales with an unknown parameter, a bad value or a cursor this API did not write. */
  | "invalid_query"
  /** A sale on behalf of an agent (`sales:on-behalf`) naming nobody registered here: nothing sent. */
  | "agent_unknown"
  /** A sale on behalf of an agent whose account is disabled: nothing sent. */
  | "agent_disabled"
  // What the frame shows and tells its portal (./embed.ts): the portal token's, the session's, service_unavailable.
  | EmbedErrorCode;

/** Why a sale could not reach the provider (recorded as the `failed` outcome's detail). */
export type ProviderErrorCode =
  | "partner_api.invalid_client"
  | "partner_api.token_rejected"
  | "partner_api.token_unreachable"
  | "partner_api.token_unavailable"
  | "partner_api.unreachable"
  | "partner_api.unauthorized";

export type ErrorCode = RequestErrorCode | ProviderErrorCode;

interface ErrorEntry {
  status: number;
  message: string;
}

// Provider failures are shown under the outcome's title ("Venda não enviada"), so they say what follows.
const SERVICE_UNAVAILABLE = "Não conseguimos falar com o fornecedor. Tente enviar novamente em instantes.";
const CREDENTIALS = "Nada foi enviado. Avise o suporte: a integração com o fornecedor precisa de ajuste.";

export const ERRORS: Record<ErrorCode, ErrorEntry> = {
  unauthorized: { status: 401, message: "Sua sessão terminou. Entre novamente para continuar." },
  steps_expired: {
    status: 401,
    message: "A verificação expirou ou já foi concluída. Entre novamente com e-mail e senha.",
  },
  invalid_credentials: { status: 401, message: "E-mail ou senha incorretos." },
  cross_site: { status: 403, message: "Pedido recusado: ele não veio desta aplicação." },
  header_refused: {
    status: 400,
    message: "Pedido recusado: ele traz um cabeçalho que este endereço não aceita (X-Auth-Return-Redirect).",
  },
  payload_too_large: {
    status: 413,
    message: "Os dados enviados são grandes demais. Confira os campos e tente novamente.",
  },
  length_required: {
    status: 411,
    message:
      "Informe o tamanho do corpo do pedido (Content-Length): este endereço não aceita envio em partes.",
  },
  unsupported_media_type: {
    status: 415,
    message: "Formato não aceito: confira o Content-Type (a API de vendas recebe application/json).",
  },
  invalid_json: { status: 400, message: "O corpo do pedido deve ser um objeto JSON válido." },
  invalid_fields: { status: 400, message: "Corrija os campos indicados." },
  idempotency_key_required: {
    status: 400,
    message: "Envie o cabeçalho Idempotency-Key com um UUID que identifique esta venda.",
  },
  idempotency_key_in_use: { status: 409, message: "Esta Idempotency-Key pertence a outra venda." },
  stale_form: { status: 409, message: "Formulário desatualizado: recarregue a página." },
  script_changed: {
    status: 409,
    message:
      "O roteiro deste plano mudou. Recarregue a página, leia o roteiro atualizado ao cliente e marque as confirmações de novo.",
  },
  not_confirmed: { status: 503, message: NOT_CONFIRMED_MESSAGE },
  service_unavailable: { status: 503, message: EMBED_ERROR_MESSAGES.service_unavailable },
  busy: { status: 503, message: "Muitos acessos neste momento. Tente novamente em alguns segundos." },
  export_in_progress: {
    status: 429,
    message: "Já há uma exportação sua em andamento. Aguarde ela terminar e tente novamente.",
  },
  exports_busy: {
    status: 429,
    message: "Muitas exportações em andamento neste momento. Tente novamente em instantes.",
  },
  rate_limited: {
    status: 429,
    message: "Muitos pedidos em pouco tempo. Aguarde o tempo indicado e tente novamente.",
  },

  token_malformed: { status: 401, message: EMBED_ERROR_MESSAGES.token_malformed },
  token_signature_invalid: { status: 401, message: EMBED_ERROR_MESSAGES.token_signature_invalid },
  token_claims_invalid: { status: 401, message: EMBED_ERROR_MESSAGES.token_claims_invalid },
  token_misaddressed: { status: 401, message: EMBED_ERROR_MESSAGES.token_misaddressed },
  token_expired: { status: 401, message: EMBED_ERROR_MESSAGES.token_expired },
  token_replayed: { status: 401, message: EMBED_ERROR_MESSAGES.token_replayed },
  token_account_disabled: { status: 403, message: EMBED_ERROR_MESSAGES.token_account_disabled },
  token_email_domain: { status: 403, message: EMBED_ERROR_MESSAGES.token_email_domain },
  token_account_conflict: { status: 403, message: EMBED_ERROR_MESSAGES.token_account_conflict },
  token_not_linked: { status: 403, message: EMBED_ERROR_MESSAGES.token_not_linked },
  token_sign_in_off: { status: 404, message: EMBED_ERROR_MESSAGES.token_sign_in_off },
  token_not_framed: { status: 403, message: EMBED_ERROR_MESSAGES.token_not_framed },
  token_in_url: { status: 400, message: EMBED_ERROR_MESSAGES.token_in_url },
  token_unavailable: { status: 401, message: EMBED_ERROR_MESSAGES.token_unavailable },
  password_sign_in_off: {
    status: 404,
    message: "A entrada com e-mail e senha está desativada. Use o botão de entrada da sua empresa.",
  },
  sign_in_unavailable: {
    status: 503,
    message: "Não foi possível entrar agora. Tente novamente em instantes; se continuar, avise o suporte.",
  },
  session_missing: { status: 401, message: EMBED_ERROR_MESSAGES.session_missing },
  session_cookie_blocked: { status: 401, message: EMBED_ERROR_MESSAGES.session_cookie_blocked },
  metrics_token_required: {
    status: 401,
    message: "Métricas só com o token de métricas: envie Authorization: Bearer <METRICS_TOKEN>.",
  },
  metrics_off: { status: 404, message: "Métricas desligadas: defina METRICS_TOKEN para publicá-las." },
  api_key_required: {
    status: 401,
    message: "Envie a chave da integração: Authorization: Bearer <chave>.",
  },
  api_key_invalid: {
    status: 401,
    message:
      "Chave de API desconhecida, revogada ou expirada. Peça uma chave válida ao operador do Partner Sales.",
  },
  method_not_allowed: {
    status: 405,
    message:
      "Este endereço da API não aceita este método: veja o cabeçalho Allow e a documentação (/api/v1).",
  },
  sale_not_found: { status: 404, message: "Nenhuma venda com este submissionId." },
  invalid_query: { status: 400, message: "Corrija os parâmetros indicados." },
  agent_unknown: {
    status: 422,
    message: "O agente indicado em agent não está cadastrado. Nada foi enviado.",
  },
  agent_disabled: {
    status: 422,
    message: "O agente indicado em agent está desativado. Nada foi enviado.",
  },
  api_not_found: {
    status: 404,
    message: "Endereço da API desconhecido: confira o caminho e o método na documentação da API (/api/v1).",
  },
  insufficient_scope: {
    status: 403,
    message: "Esta chave de API não tem permissão para esta operação. Peça ao operador o escopo indicado.",
  },
  "partner_api.invalid_client": { status: 502, message: CREDENTIALS },
  "partner_api.token_rejected": { status: 502, message: CREDENTIALS },
  "partner_api.unauthorized": { status: 502, message: CREDENTIALS },
  "partner_api.token_unreachable": { status: 502, message: SERVICE_UNAVAILABLE },
  "partner_api.token_unavailable": { status: 502, message: SERVICE_UNAVAILABLE },
  "partner_api.unreachable": { status: 502, message: SERVICE_UNAVAILABLE },
};

/** Seconds a client should wait before trying again, sent as `Retry-After` with every 503. */
export const RETRY_AFTER_SECONDS = 5;

export function userMessageFor(code: ErrorCode): string {
  return ERRORS[code].message;
}

export function httpStatusFor(code: ErrorCode): number {
  return ERRORS[code].status;
}

const CONFIGURATION_FAILURES: ReadonlySet<ErrorCode> = new Set([
  "partner_api.invalid_client",
  "partner_api.token_rejected",
  "partner_api.unauthorized",
]);

/** Provider problems an agent cannot fix by sending again: the partner's integration needs an operator. */
export function isConfigurationFailure(code: ErrorCode): boolean {
  return CONFIGURATION_FAILURES.has(code);
}

/** The JSON error body of every route: `error` for programs, `message` for people. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
  /** Field → pt-BR message, with `invalid_fields`. */
  fieldErrors?: Record<string, string>;
}

export function errorBody(code: ErrorCode, fieldErrors?: Record<string, string>): ErrorBody {
  return { error: code, message: userMessageFor(code), ...(fieldErrors ? { fieldErrors } : {}) };
}

/** A typed error with a code; its message is for operators and logs, never shown to a person. */
export class AppError extends Error {
  override readonly name: string = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
