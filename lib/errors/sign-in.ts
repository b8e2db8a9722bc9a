import { userMessageFor, type RequestErrorCode } from "@/lib/errors";
import { OIDC_MESSAGES, type OidcErrorCode } from "./oidc";

/** What the sign-in page may be told by `?error=`: a fixed code, never text to show as it came. */
export type SignInErrorCode =
  | OidcErrorCode
  | Extract<
      RequestErrorCode,
      "sign_in_unavailable" | "password_sign_in_off" | "invalid_credentials" | "stale_form" | "steps_expired"
    >;

const OWN_CODES: ReadonlySet<string> = new Set<SignInErrorCode>([
  ...(Object.keys(OIDC_MESSAGES) as OidcErrorCode[]),
  "sign_in_unavailable",
  "password_sign_in_off",
  "steps_expired",
]);

// Auth.js's own `?error=` values (pages.error is the sign-in page), for a request that reached its endpoints
// directly rather than through the app's forms and its OIDC steps, which send their own codes.
const AUTH_JS_CODES: Readonly<Record<string, SignInErrorCode>> = {
  CredentialsSignin: "invalid_credentials",
  MissingCSRF: "stale_form",
  OAuthCallbackError: "oidc_failed",
  OAuthSignInError: "oidc_failed",
  OAuthAccountNotLinked: "oidc_account_conflict",
};

export function signInErrorPath(code: SignInErrorCode): string {
  return `/sign-in?error=${code}`;
}

/** Null without an error; anything unknown (Configuration, AccessDenied, or made up) reads as the generic one. */
export function signInErrorFrom(value: unknown): SignInErrorCode | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (typeof raw !== "string" || !raw) return null;
  if (OWN_CODES.has(raw)) return raw as SignInErrorCode;
  return Object.hasOwn(AUTH_JS_CODES, raw) ? AUTH_JS_CODES[raw]! : "sign_in_unavailable";
}

/** The sign-in page's pt-BR sentence for a code. */
export function signInMessageFor(code: SignInErrorCode): string {
  return Object.hasOwn(OIDC_MESSAGES, code)
    ? OIDC_MESSAGES[code as OidcErrorCode]
    : userMessageFor(code as RequestErrorCode);
}
