import "server-only";

/** The raw shapes of the provider's interface (its token and partner sale resources). Callers get domain results instead. */

export interface TokenSuccessBody {
  access_token: string;
  token_type: string;
  expires_in: number;
}

export interface TokenErrorBody {
  error: string;
  error_description?: string;
  error_uri?: string;
}

export interface SaleEnvelope {
  data: boolean;
  message: string;
  success: boolean;
  total: null | unknown;
}

/** The partner sale request body, its fields in the order the provider documents them; optionals are left out, never "". */
export interface PartnerSaleRequestBody {
  customerDocument: string;
  customerEmail: string;
  customerPhone: string;
  customerName: string;
  planId: string;
  partnerSource?: string;
  externalId?: string;
  birthDate?: string;
}

export const PARTNER_SALE_FIELDS = [
  "customerDocument",
  "customerEmail",
  "customerPhone",
  "customerName",
  "planId",
  "partnerSource",
  "externalId",
  "birthDate",
] as const satisfies readonly (keyof PartnerSaleRequestBody)[];

export type PartnerSaleField = (typeof PARTNER_SALE_FIELDS)[number];

export function isTokenSuccessBody(value: unknown): value is TokenSuccessBody {
  if (!value || typeof value !== "object") return false;
  const body = value as Record<string, unknown>;
  return (
    typeof body.access_token === "string" &&
    body.access_token.length > 0 &&
    typeof body.token_type === "string" &&
    body.token_type.toLowerCase() === "bearer"
  );
}

export function isTokenErrorBody(value: unknown): value is TokenErrorBody {
  return Boolean(value && typeof value === "object" && typeof (value as TokenErrorBody).error === "string");
}

export function isSaleEnvelope(value: unknown): value is SaleEnvelope {
  if (!value || typeof value !== "object") return false;
  const body = value as Record<string, unknown>;
  return typeof body.success === "boolean" && typeof body.data === "boolean";
}
