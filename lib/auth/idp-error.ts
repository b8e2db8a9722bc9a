import type { OidcErrorCode } from "@/lib/errors/oidc";

/**
 * An IdP's own error code, from the authorization response (`?error=`, RFC 6749 4.1.2.1, OpenID Connect Core
 * 3.1.2.6) or the token endpoint (RFC 6749 5.2: the JSON body's `error`, or RFC 6750's
 * `WWW-Authenticate: … error="…"`), and what it means for the agent: the app's set-up at the IdP (no use trying
 * again), the agent's own cancel, an IdP in trouble, or a sign-in to start over.
 */
export const IDP_ERRORS: Readonly<Record<string, OidcErrorCode>> = {
  // The client, its credentials, or what it asks for is not what the IdP has registered.
  invalid_client: "oidc_misconfigured",
  unauthorized_client: "oidc_misconfigured",
  unsupported_grant_type: "oidc_misconfigured",
  unsupported_response_type: "oidc_misconfigured",
  invalid_scope: "oidc_misconfigured",
  invalid_request: "oidc_misconfigured",
  invalid_request_uri: "oidc_misconfigured",
  invalid_request_object: "oidc_misconfigured",
  request_not_supported: "oidc_misconfigured",
  request_uri_not_supported: "oidc_misconfigured",
  invalid_target: "oidc_misconfigured",
  access_denied: "oidc_cancelled",
  server_error: "oidc_unreachable",
  temporarily_unavailable: "oidc_unreachable",
  // The code was used or expired, or the IdP wants the person back on its own pages: a fresh sign-in helps.
  invalid_grant: "oidc_failed",
  login_required: "oidc_failed",
  interaction_required: "oidc_failed",
  consent_required: "oidc_failed",
  account_selection_required: "oidc_failed",
};

/** The code as a metric label: one of the known ones, or `other` (an IdP may send anything). */
export const idpErrorLabel = (code: string) => (Object.hasOwn(IDP_ERRORS, code) ? code : "other");

/** What an IdP's error code means for the sign-in; an unknown one is a failure to try again. */
export const failureForIdpError = (code: string): OidcErrorCode =>
  Object.hasOwn(IDP_ERRORS, code) ? IDP_ERRORS[code]! : "oidc_failed";

const CODE = /^[\w.:-]{1,64}$/;
const CHALLENGE_ERROR = /(?:^|[\s,])error\s*=\s*(?:"([^"]*)"|([^\s,]+))/i;
const DESCRIPTION_MAX_LENGTH = 200;

/**
 * What an IdP's refusal says: its code, and its description made safe for one log field (no e-mail address, none of
 * what the request carried, printable ASCII, at most 200 characters).
 */
export interface IdpError {
  code: string;
  description?: string;
}

/**
 * The error of a token endpoint's answer that is not a success: `WWW-Authenticate`'s `error` first (a 401 for the
 * client's credentials, RFC 6750 3), else the JSON body's (RFC 6749 5.2). Undefined when neither names one. Reads a
 * copy: the answer goes on to Auth.js untouched.
 */
export async function idpErrorOf(
  response: Response,
  /** What the request carried that must not come back into the log (code, secret…). */
  secrets: readonly string[] = [],
): Promise<IdpError | undefined> {
  const challenge = CHALLENGE_ERROR.exec(response.headers.get("www-authenticate") ?? "");
  const fromHeader = challenge ? (challenge[1] ?? challenge[2]) : undefined;
  let body: { error?: unknown; error_description?: unknown } = {};
  try {
    const parsed: unknown = JSON.parse(await response.clone().text());
    if (typeof parsed === "object" && parsed !== null) body = parsed;
  } catch {
    // Not JSON (an HTML error page): the header alone speaks.
  }
  const code = [fromHeader, body.error].find(
    (candidate): candidate is string => typeof candidate === "string" && CODE.test(candidate),
  );
  if (!code) return undefined;
  const description =
    typeof body.error_description === "string" ? safeDescription(body.error_description, secrets) : "";
  return description ? { code, description } : { code };
}

function safeDescription(text: string, secrets: readonly string[]): string {
  let safe = text;
  for (const secret of secrets) safe = safe.replaceAll(secret, "<redacted>");
  return (
    safe
      // Some IdPs quote the person's address in their sentence: the log keeps it out, as every other line does.
      .replace(/[^\s'"<>]+@[^\s'"<>]+/gu, "<e-mail>")
      .replace(/[^\x20-\x7e]/g, " ")
      .trim()
      .slice(0, DESCRIPTION_MAX_LENGTH)
  );
}
