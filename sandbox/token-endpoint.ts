import { createHash, timingSafeEqual } from "node:crypto";
import { json, mediaType, type SandboxRequest, type SandboxResponse } from "./http";
import type { SandboxState } from "./state";

export const TOKEN_PATH = "/core/sso/connect/token";

export type TokenErrorCode = "invalid_request" | "unsupported_grant_type" | "invalid_client";

export interface TokenEndpointContext {
  state: SandboxState;
  clientId: string;
  clientSecret: string;
  errorPageUrl: string;
}

const REQUIRED_PARAMETERS = ["grant_type", "client_id", "client_secret"] as const;
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

export function isFormEncoded(request: SandboxRequest): boolean {
  return mediaType(request.headers) === "application/x-www-form-urlencoded";
}

export function tokenForm(request: SandboxRequest): URLSearchParams | null {
  return isFormEncoded(request) ? new URLSearchParams(request.rawBody) : null;
}

function sameSecret(given: string, expected: string): boolean {
  // Hashing first gives equal-length inputs, so neither content nor length leaks through timing.
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function tokenError(
  status: number,
  error: TokenErrorCode,
  description: string,
  context: TokenEndpointContext,
): SandboxResponse {
  const headers: Record<string, string> = { ...NO_STORE };
  if (status === 405) headers.allow = "POST";
  return json(
    status,
    { error, error_description: description, error_uri: `${context.errorPageUrl}#${error}` },
    headers,
  );
}

export function handleTokenRequest(request: SandboxRequest, context: TokenEndpointContext): SandboxResponse {
  if (request.method !== "POST") {
    return tokenError(405, "invalid_request", "The token endpoint only accepts POST requests.", context);
  }
  if (request.bodyTooLarge) {
    return tokenError(413, "invalid_request", "The request body is too large.", context);
  }
  const form = tokenForm(request);
  if (!form) {
    return tokenError(
      400,
      "invalid_request",
      "The request body must be form-encoded (Content-Type: application/x-www-form-urlencoded).",
      context,
    );
  }
  for (const name of REQUIRED_PARAMETERS) {
    if (form.getAll(name).length > 1) {
      return tokenError(
        400,
        "invalid_request",
        `The '${name}' parameter must not be included more than once.`,
        context,
      );
    }
  }

  const missing = (name: string) =>
    tokenError(400, "invalid_request", `The mandatory '${name}' parameter is missing.`, context);
  const grantType = form.get("grant_type");
  if (!grantType) return missing("grant_type");
  if (grantType !== "client_credentials") {
    return tokenError(
      400,
      "unsupported_grant_type",
      "The specified 'grant_type' is not supported; use 'client_credentials'.",
      context,
    );
  }
  const clientId = form.get("client_id");
  if (!clientId) return missing("client_id");
  const clientSecret = form.get("client_secret");
  if (!clientSecret) return missing("client_secret");
  if (clientId !== context.clientId) {
    return tokenError(401, "invalid_client", "The specified client_id is invalid.", context);
  }
  if (!sameSecret(clientSecret, context.clientSecret)) {
    return tokenError(401, "invalid_client", "The specified client credentials are invalid.", context);
  }

  const { state } = context;
  const accessToken = state.tokens.issue(state.tokenLifetimeSeconds);
  state.stats.tokensIssued++;
  return json(
    200,
    { access_token: accessToken, token_type: "Bearer", expires_in: state.tokenLifetimeSeconds },
    NO_STORE,
  );
}
