import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { decode, getToken } from "next-auth/jwt";
import { isHttpsOrLoopback } from "@/lib/config/env-values";
import { OIDC_PROVIDER_ID } from "@/lib/config/oidc";
import { doorName } from "./doors";
import { resolveAuthSecret } from "./secret";
import { authCookies } from "./session-cookie";
import { failureForIdpError, idpErrorLabel, idpErrorOf, type IdpError } from "./idp-error";
import type { OidcErrorCode } from "@/lib/errors/oidc";
import { getConfig } from "@/lib/env";
import { log } from "@/lib/log";
import { countIdpError, countSignInRefusal } from "@/lib/metrics";
import { securityEvent } from "@/lib/security-log";

/**
 * One OIDC sign-in step (sending the agent to the IdP, or taking them back at the callback). Auth.js turns most of
 * what can go wrong into one `?error=Configuration`; what really happened is gathered here, per request, from the
 * IdP requests (idpFetch) and the error Auth.js logs, so the agent reads what it was and the log says why.
 */
interface Attempt {
  stage?: OidcStage;
  unreachable: { detail: string } | undefined;
  error: unknown;
  /** The `error` parameter the IdP sent back to the callback (Auth.js's OAuthCallbackError does not keep it). */
  idpError?: string | null;
  /** A callback whose state cookie is missing, does not decrypt, or names another state than the callback's. */
  missingState?: boolean;
  /** What the token endpoint said when it refused (`invalid_client`…), read from its answer before Auth.js. */
  tokenError?: IdpError;
  /** Our side of the client's set-up failed before anything was sent (a key that will not sign). */
  misconfigured?: { detail: string };
}

const attempts = new AsyncLocalStorage<Attempt>();
const IDP_TIMEOUT_MS = 10_000;

export type OidcStage = "start" | "callback";
export type OidcFailure = OidcErrorCode | "sign_in_unavailable";
export type OidcAttemptResult<T> = { ok: true; value: T } | { ok: false; failure: OidcFailure };

/**
 * Auth.js's fetch for everything it asks the IdP (discovery, token): bounded in time, failures remembered, and https
 * only (loopback aside). The ID token's signature is not checked in the code flow (it comes from the token
 * endpoint over TLS), so an http address in the IdP's discovery would hand the code and the client secret to
 * whoever is on the way, and is refused before a byte is sent.
 */
export async function idpFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const timeout = AbortSignal.timeout(IDP_TIMEOUT_MS);
  const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  const attempt = attempts.getStore();
  const url = new URL(input instanceof Request ? input.url : input);
  if (!isHttpsOrLoopback(url)) {
    if (attempt) attempt.unreachable ??= { detail: "insecure_url" };
    throw new TypeError("The IdP's address is not https");
  }
  // A start always asks (an IdP that is down shows on the sign-in page at once); a callback takes the document a
  // start read moments before. (The signed-out page's logout link keeps its own answer: lib/auth/oidc-logout.ts.)
  const readsDiscovery = isDiscovery(url, input, init);
  const discovery = attempt?.stage === "callback" && readsDiscovery ? discoveries.get(url.href) : undefined;
  if (discovery && discovery.until > Date.now()) return discoveryResponse(discovery);
  try {
    const response = await fetch(input, { ...init, signal });
    if (response.status >= 500 && attempt) attempt.unreachable ??= { detail: `http_${response.status}` };
    // A refusal from the token endpoint (the only POST): Auth.js keeps only "a challenge" or "an error", not which.
    if (attempt && !response.ok && response.status < 500 && isPost(input, init)) {
      attempt.tokenError ??= await idpErrorOf(response, secretsOf(init));
    }
    if (attempt && response.ok && readsDiscovery) {
      const fresh = {
        body: await response.text(),
        contentType: response.headers.get("content-type") ?? "application/json",
        until: Date.now() + DISCOVERY_TTL_MS,
      };
      discoveries.set(url.href, fresh);
      return discoveryResponse(fresh);
    }
    return response;
  } catch (error) {
    if (attempt) attempt.unreachable ??= { detail: networkProblemOf(error) };
    throw error;
  }
}

// Auth.js reads the IdP's discovery document at every start and callback. A good answer is kept a few minutes (an
// IdP that moves its endpoints is followed within them) for the callbacks, which then cost the IdP only the token
// request; a failed one is not kept, and every start asks again, so an outage shows at the next attempt.
const DISCOVERY_TTL_MS = 5 * 60_000;
interface Discovery {
  body: string;
  contentType: string;
  until: number;
}
// On globalThis: the start (a server action) and the callback (a route) may be bundled apart.
const discoveries = ((
  globalThis as { __partnerSalesDiscoveries?: Map<string, Discovery> }
).__partnerSalesDiscoveries ??= new Map<string, Discovery>());

/**
 * What the token request carried that an IdP might quote back in its error's description: the code, the PKCE
 * verifier, the client's secret or assertion (and the configured secret, which HTTP Basic sent in a header).
 */
function secretsOf(init?: RequestInit): string[] {
  const body = init?.body instanceof URLSearchParams ? init.body : new URLSearchParams();
  const clientAuth = getConfig().oidc?.clientAuth;
  return [
    ...["code", "code_verifier", "client_secret", "client_assertion"].map((name) => body.get(name) ?? ""),
    clientAuth && "secret" in clientAuth ? clientAuth.secret : "",
  ].filter((value) => value.length >= 4);
}

const methodOf = (input: RequestInfo | URL, init?: RequestInit) =>
  (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
const isPost = (input: RequestInfo | URL, init?: RequestInit) => methodOf(input, init) === "POST";
const isDiscovery = (url: URL, input: RequestInfo | URL, init?: RequestInit) =>
  methodOf(input, init) === "GET" && url.pathname.endsWith("/.well-known/openid-configuration");

const discoveryResponse = (discovery: Discovery) =>
  new Response(discovery.body, { status: 200, headers: { "content-type": discovery.contentType } });

/** For tests: the next discovery is asked of the IdP. */
export function forgetDiscoveries(): void {
  discoveries.clear();
}

function networkProblemOf(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return "timeout";
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === "string" ? cause.code : "network";
}

/** The client's own set-up failed inside an attempt (lib/auth/oidc-client-auth.ts): the operator's to fix. */
export function noteMisconfiguration(detail: string): void {
  const attempt = attempts.getStore();
  if (attempt) attempt.misconfigured ??= { detail };
}

/** Auth.js's logger hands its errors here first: inside an attempt they belong to its one log line (true). */
export function noteAuthError(error: Error): boolean {
  const attempt = attempts.getStore();
  if (!attempt) return false;
  attempt.error ??= error;
  return true;
}

// oauth4webapi's errors (the IdP's answer or the ID token failed a check) carry an `OAUTH_…` code; their class
// names do not survive the production build's minifier. Their messages are the library's own fixed sentences
// (which check failed), never a value from the answer, so they may go to the log.
const isProtocolError = (error: Error): error is Error & { code: string } => {
  const { code } = error as { code?: unknown };
  return typeof code === "string" && code.startsWith("OAUTH_");
};

interface Diagnosis {
  failure: OidcFailure;
  /** For the log: which error, and a safe word on why. */
  error?: string;
  detail?: string;
  /** The IdP's own error code, and where it came from (the authorization response or the token endpoint). */
  idpError?: { code: string; from: "authorization" | "token"; description?: string };
}

const SAFE_WORD = /^[\w.:-]{1,64}$/;
const safeWord = (value: unknown) => (typeof value === "string" && SAFE_WORD.test(value) ? value : undefined);

/** What went wrong in an attempt, from what it gathered. Exported for its tests. */
export function diagnose(attempt: Attempt): Diagnosis {
  if (attempt.missingState) return { failure: "oidc_state_mismatch", error: "StateCookieMismatch" };
  if (attempt.unreachable) return { failure: "oidc_unreachable", detail: attempt.unreachable.detail };
  if (attempt.misconfigured) return { failure: "oidc_misconfigured", detail: attempt.misconfigured.detail };
  const error = attempt.error;
  const authType: unknown = (error as { type?: unknown } | undefined)?.type;
  const type = typeof authType === "string" ? authType : error instanceof Error ? error.name : undefined;
  const cause = (error as { cause?: { err?: unknown } } | undefined)?.cause;
  // Auth.js wraps what the signIn callback or the session's start threw (our database) in these two.
  const wraps = type === "CallbackRouteError" || type === "AccessDenied";
  const inner = wraps && cause?.err instanceof Error ? cause.err : error;
  // The token endpoint refused (`invalid_client`: a wrong or expired secret, a method the client is not allowed).
  if (attempt.tokenError) {
    const { code, description } = attempt.tokenError;
    return {
      failure: failureForIdpError(code),
      error: inner instanceof Error && isProtocolError(inner) ? `${type}/${inner.code}` : type,
      detail: code,
      idpError: { code, from: "token", ...(description ? { description } : {}) },
    };
  }
  if (!(error instanceof Error) || !(inner instanceof Error)) return { failure: "oidc_failed" };

  // The IdP answered the authorization request with an error (Auth.js has checked its state by then);
  // `access_denied` is the agent pressing "cancel", `unauthorized_client` a client the IdP does not allow.
  if (type === "OAuthCallbackError") {
    const code = safeWord(attempt.idpError);
    return {
      failure: code ? failureForIdpError(code) : "oidc_failed",
      error: type,
      detail: code,
      ...(code ? { idpError: { code, from: "authorization" as const } } : {}),
    };
  }
  // The state, PKCE or nonce cookie is missing or was not ours: another browser, an expired or forged attempt.
  // A start without the sign-in page's CSRF token (a stale page, another site's form) is the same story.
  if (type === "InvalidCheck" || type === "MissingCSRF")
    return { failure: "oidc_state_mismatch", error: type };

  if (isProtocolError(inner)) {
    const mismatch = /"(state|nonce)"/.test(inner.message);
    // A token endpoint's refusal names itself (`invalid_grant`: a code replayed or expired).
    const refusal = safeWord((inner as { error?: unknown }).error);
    return {
      failure: mismatch ? "oidc_state_mismatch" : "oidc_failed",
      error: `${type}/${inner.code}`,
      detail: [refusal, inner.message.slice(0, 200)].filter(Boolean).join(": "),
    };
  }
  // Our own part failed (the database, while finding the agent or opening the session).
  const code = safeWord((inner as { code?: unknown }).code);
  return { failure: "sign_in_unavailable", error: inner === error ? type : `${type}/${code ?? inner.name}` };
}

/**
 * Whether the callback's `state` is the one this browser's state cookie holds: the cookie decrypts under our secret
 * (Auth.js seals it with the cookie's name as salt), was made for our IdP, and names this very state. The same check
 * Auth.js makes, but made before it: Auth.js reads the IdP's discovery first, so a callback that fails it would cost
 * an outbound request for anyone who sends one. Exported for its tests.
 */
export async function stateCookieMatches(cookieHeader: string | null, state: string | null | undefined) {
  if (!cookieHeader || !state) return false;
  const config = getConfig();
  const name = authCookies(config).state.name;
  const secret = resolveAuthSecret(config);
  // Read as lib/auth/session-token.ts reads the session cookie: Auth.js's own parser, the raw token.
  const sealed = await getToken({
    req: { headers: new Headers({ cookie: cookieHeader }) },
    cookieName: name,
    secureCookie: name.startsWith("__"),
    secret,
    raw: true,
  });
  if (!sealed) return false;
  try {
    const payload = await decode({ token: sealed, secret, salt: name });
    return payload?.provider === OIDC_PROVIDER_ID && payload.value === state;
  } catch {
    return false; // not ours: another secret, tampered with, expired
  }
}

/** What a step needs of its request: the cookies, and at the callback the IdP's `error` parameter. */
export interface OidcRequest {
  cookie: string | null;
  idpError?: string | null;
  /** At the callback: the `state` parameter the IdP sent back. */
  state?: string | null;
}

/**
 * Runs one step of an OIDC sign-in and tells whether it failed, and how (one log line when it did). A step that
 * throws is a failure too: Auth.js throws its own errors at a server action instead of redirecting.
 * A callback whose state cookie does not decrypt and match its state is no sign-in this browser started: it is
 * refused without running the step, so a forged callback costs no outbound request (stateCookieMatches).
 */
export async function withOidcAttempt<T>(
  stage: OidcStage,
  run: () => Promise<T>,
  request: OidcRequest = { cookie: null },
): Promise<OidcAttemptResult<T>> {
  const attempt: Attempt = { stage, unreachable: undefined, error: undefined, idpError: request.idpError };
  if (stage === "callback" && !(await stateCookieMatches(request.cookie, request.state))) {
    attempt.missingState = true;
    return failed(stage, attempt);
  }
  let value: T;
  try {
    value = await attempts.run(attempt, run);
  } catch (error) {
    attempt.error ??= error;
    return failed(stage, attempt);
  }
  return attempt.error || attempt.unreachable ? failed(stage, attempt) : { ok: true, value };
}

async function failed<T>(stage: OidcStage, attempt: Attempt): Promise<OidcAttemptResult<T>> {
  const { failure, error, detail, idpError } = diagnose(attempt);
  const fields = {
    stage,
    reason: failure,
    ...(error ? { error } : {}),
    ...(detail ? { detail } : {}),
    ...(idpError
      ? {
          idpError: idpError.code,
          idpErrorFrom: idpError.from,
          ...(idpError.description ? { idpErrorDescription: idpError.description } : {}),
        }
      : {}),
  };
  if (failure === "sign_in_unavailable") log.error("auth.oidc_sign_in_failed", fields);
  else log.warn("auth.oidc_sign_in_failed", fields);
  countSignInRefusal("oidc", failure);
  if (idpError) countIdpError(idpError.from, idpErrorLabel(idpError.code));
  const issuer = getConfig().oidc?.issuer;
  await securityEvent("auth.sign_in", {
    outcome: "failure",
    door: issuer ? doorName({ kind: "oidc", issuer }) : null,
    agentId: null,
    reason: failure,
    details: { stage },
  });
  return { ok: false, failure };
}
