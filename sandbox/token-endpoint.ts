import { createHash, timingSafeEqual } from "node:crypto";
import { basicCredentials, type BasicCredentials } from "./basic-auth";
import { json, mediaType, type RequestHead, type SandboxRequest, type SandboxResponse } from "./http";
import type { SandboxState } from "./state";

export const TOKEN_PATH = "/core/sso/connect/token";

export type TokenErrorCode = "invalid_request" | "unsupported_grant_type" | "invalid_client";

export interface TokenEndpointContext {
  state: SandboxState;
  clientId: string;
  clientSecret: string;
  errorPageUrl: string;
  /** When the token is issued (its expiry counts from here); the real time unless a test says otherwise. */
  now?: Date;
}

interface PresentedCredentials extends BasicCredentials {
  viaBasic: boolean;
}

const REQUIRED_PARAMETERS = ["grant_type", "client_id", "client_secret"] as const;
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };
// RFC 6749 section 5.2: a client that tried Basic gets a 401 with a challenge in the same scheme.
const BASIC_CHALLENGE = { "www-authenticate": 'Basic realm="sandbox"' };

export function isFormEncoded(request: Pick<SandboxRequest, "headers">): boolean {
  return mediaType(request.headers) === "application/x-www-form-urlencoded";
}

export function tokenForm(request: Pick<SandboxRequest, "headers" | "rawBody">): URLSearchParams | null {
  return isFormEncoded(request) ? new URLSearchParams(request.rawBody) : null;
}

/** The client a token request claims to be (Basic first, then the form), for the log; never checked. */
export function claimedClientId(request: RequestHead | SandboxRequest): string | undefined {
  const basic = basicCredentials(request.headers.authorization);
  if (basic && basic !== "malformed") return basic.clientId;
  return ("rawBody" in request ? tokenForm(request)?.get("client_id") : undefined) ?? undefined;
}

function sameSecret(given: string, expected: string): boolean {
  // Hashing first gives equal-length inputs, so neither content nor length leaks through timing.
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export function tokenError(
  status: number,
  error: TokenErrorCode,
  description: string,
  { errorPageUrl }: Pick<TokenEndpointContext, "errorPageUrl">,
  headers: Record<string, string> = {},
): SandboxResponse {
  return json(
    status,
    { error, error_description: description, error_uri: `${errorPageUrl}#${error}` },
    { ...NO_STORE, ...(status === 405 ? { allow: "POST" } : {}), ...headers },
  );
}

function presentedCredentials(
  request: SandboxRequest,
  form: URLSearchParams,
  context: TokenEndpointContext,
): PresentedCredentials | SandboxResponse {
  const missing = (name: string) =>
    tokenError(400, "invalid_request", `O parâmetro obrigatório '${name}' não foi enviado.`, context);
  const basic = basicCredentials(request.headers.authorization);
  if (basic === null) {
    const clientId = form.get("client_id");
    if (!clientId) return missing("client_id");
    const clientSecret = form.get("client_secret");
    if (!clientSecret) return missing("client_secret");
    return { clientId, clientSecret, viaBasic: false };
  }
  if (form.has("client_secret")) {
    return tokenError(
      400,
      "invalid_request",
      "O cliente deve se autenticar por um único método: o cabeçalho Authorization Basic ou o client_secret no corpo, não os dois.",
      context,
    );
  }
  if (basic === "malformed") {
    return tokenError(
      401,
      "invalid_client",
      "O cabeçalho Authorization Basic está malformado; envie base64(client_id:client_secret), cada parte form-encoded.",
      context,
      BASIC_CHALLENGE,
    );
  }
  const formClientId = form.get("client_id");
  if (formClientId !== null && formClientId !== basic.clientId) {
    return tokenError(
      400,
      "invalid_request",
      "O parâmetro 'client_id' não confere com o cliente do cabeçalho Authorization Basic.",
      context,
    );
  }
  return { ...basic, viaBasic: true };
}

export function handleTokenRequest(request: SandboxRequest, context: TokenEndpointContext): SandboxResponse {
  if (request.method !== "POST") {
    return tokenError(405, "invalid_request", "O endpoint de token só aceita requisições POST.", context);
  }
  const form = tokenForm(request);
  if (!form) {
    return tokenError(
      400,
      "invalid_request",
      "O corpo da requisição deve ser form-encoded (Content-Type: application/x-www-form-urlencoded).",
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

  const grantType = form.get("grant_type");
  if (!grantType) {
    return tokenError(
      400,
      "invalid_request",
      "O parâmetro obrigatório 'grant_type' não foi enviado.",
      context,
    );
  }
  if (grantType !== "client_credentials") {
    return tokenError(
      400,
      "unsupported_grant_type",
      "O 'grant_type' informado não é suportado; use 'client_credentials'.",
      context,
    );
  }
  const presented = presentedCredentials(request, form, context);
  if ("status" in presented) return presented;
  const challenge = presented.viaBasic ? BASIC_CHALLENGE : {};
  if (presented.clientId !== context.clientId) {
    return tokenError(401, "invalid_client", "O client_id informado é inválido.", context, challenge);
  }
  if (!sameSecret(presented.clientSecret, context.clientSecret)) {
    return tokenError(
      401,
      "invalid_client",
      "As credenciais de cliente informadas são inválidas.",
      context,
      challenge,
    );
  }

  const { state } = context;
  const accessToken = state.tokens.issue(state.tokenLifetimeSeconds, context.now?.getTime());
  state.stats.tokensIssued++;
  return json(
    200,
    { access_token: accessToken, token_type: "Bearer", expires_in: state.tokenLifetimeSeconds },
    NO_STORE,
  );
}
