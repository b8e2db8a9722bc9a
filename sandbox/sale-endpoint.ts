import { json, mediaType, type SandboxRequest, type SandboxResponse } from "./http";
import type { Plan } from "./plans";
import { invalidFieldsMessage, validateSale } from "./sale-validation";
import type { SandboxState } from "./state";
import type { TokenCheck } from "./token-store";

export const SALE_PATH = "/core/financeiro/partnersale";

export interface SaleEndpointContext {
  state: SandboxState;
  plans: readonly Plan[];
  now: Date;
}

const UNAUTHORIZED_MESSAGES: Record<Exclude<TokenCheck, "valid"> | "missing", string> = {
  missing: "É necessário um token de acesso Bearer.",
  unknown: "O token de acesso é inválido.",
  revoked: "O token de acesso foi revogado.",
  expired: "O token de acesso expirou.",
};

export function saleEnvelope(
  status: number,
  success: boolean,
  message: string,
  headers?: Record<string, string>,
) {
  return json(status, { data: success, message, success, total: null }, headers);
}

export function isSalePath(pathname: string): boolean {
  return pathname.toLowerCase() === SALE_PATH;
}

function bearerToken(request: SandboxRequest): string | null {
  const match = /^Bearer +([^\s]+) *$/i.exec(request.headers.authorization ?? "");
  return match?.[1] ?? null;
}

function parseJsonObject(rawBody: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(rawBody);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export function handleSaleRequest(request: SandboxRequest, context: SaleEndpointContext): SandboxResponse {
  if (request.method !== "POST") {
    return saleEnvelope(405, false, "O endpoint de venda de parceiro só aceita requisições POST.", {
      allow: "POST",
    });
  }

  const { state } = context;
  const token = bearerToken(request);
  const tokenCheck = token === null ? "missing" : state.tokens.check(token, context.now.getTime());
  if (tokenCheck !== "valid") {
    return saleEnvelope(401, false, UNAUTHORIZED_MESSAGES[tokenCheck], {
      "www-authenticate": 'Bearer error="invalid_token"',
    });
  }

  if (mediaType(request.headers) !== "application/json") {
    return saleEnvelope(400, false, "O corpo da requisição deve ser JSON (Content-Type: application/json).");
  }
  const body = parseJsonObject(request.rawBody);
  if (!body) return saleEnvelope(400, false, "O corpo da requisição deve ser um objeto JSON.");

  const validation = validateSale(body, context.now);
  if (!validation.ok) return saleEnvelope(400, false, invalidFieldsMessage(validation.invalidFields));

  const { customerDocument, planId } = validation.sale;
  if (!context.plans.some((plan) => plan.id.toLowerCase() === planId.toLowerCase())) {
    return saleEnvelope(422, false, "O plano informado não existe.");
  }
  if (state.hasSale(customerDocument, planId)) {
    return saleEnvelope(409, false, "O cliente já possui este plano.");
  }

  state.acceptSale({ receivedAt: request.receivedAt.toISOString(), body });
  return saleEnvelope(200, true, "Venda de parceiro registrada.");
}
