import { decodeJwt } from "jose";
import { PortalTokenError, signIn } from "@/auth";
import type { PortalTokenProblem } from "@/lib/auth/portal-token";
import { sessionNamedByToken } from "@/lib/dal/embed";
import type { RequestErrorCode } from "@/lib/errors";
import { AUTH_JS_REDIRECT_HEADER } from "@/lib/http/auth-js-header";
import { errorResponse, noStoreJson } from "@/lib/http/json";
import { BODY_LIMITS, readJsonObject } from "@/lib/http/read-body";
import { crossSiteRefusal } from "@/lib/http/same-origin";
import { log } from "@/lib/log";
import { countSignInRefusal } from "@/lib/metrics";
import { pickPrefillFields } from "@/lib/validation/prefill";

export const dynamic = "force-dynamic";

const TOKEN_ERRORS: Record<PortalTokenProblem | "sso-off", RequestErrorCode> = {
  malformed: "token_malformed",
  signature: "token_signature_invalid",
  claims: "token_claims_invalid",
  misaddressed: "token_misaddressed",
  expired: "token_expired",
  replayed: "token_replayed",
  disabled: "token_account_disabled",
  email_domain: "token_email_domain",
  account_conflict: "token_account_conflict",
  not_linked: "token_not_linked",
  "sso-off": "token_sign_in_off",
};

type SignInProblem = keyof typeof TOKEN_ERRORS;

/** Null when the token signed the agent in; else why not ("failed": not the token's fault, and logged). */
async function signInProblem(token: string): Promise<SignInProblem | "failed" | null> {
  try {
    const to = await signIn("embed-token", { token, redirect: false });
    // Refused without a throw (lib/http/auth-js-header.ts): never taken for a sign-in.
    if (new URL(to, "http://app.invalid").searchParams.has("error")) {
      log.error("auth.embed_session_failed", { reason: "refused_without_error" });
      return "failed";
    }
    return null;
  } catch (error) {
    if (error instanceof PortalTokenError) return error.problem;
    log.error("auth.embed_session_failed", { error });
    return "failed";
  }
}

/**
 * Starts the agent's session from a partner portal's signed token (checked by the "embed-token" provider in
 * auth.ts). Called by /embed with fetch rather than a server action, so the token leaves the address at once.
 */
export async function POST(request: Request) {
  const crossSite = await crossSiteRefusal(request);
  if (crossSite) return crossSite;
  if (request.headers.has(AUTH_JS_REDIRECT_HEADER)) return errorResponse("header_refused");
  const body = await readJsonObject(request, BODY_LIMITS.embedSession);
  if (!body.ok) return errorResponse(body.code);
  const { token } = body.value;
  // No token is the portal's not handing one over; anything but text is not a token.
  if (token === undefined || token === "") return errorResponse("token_unavailable");
  if (typeof token !== "string") return errorResponse("token_malformed");
  const problem = await signInProblem(token);
  // Verified by the sign-in; only the prefill claim is read here.
  if (!problem) return noStoreJson(200, { prefill: pickPrefillFields(decodeJwt(token).prefill) });
  if (problem === "failed") return errorResponse("service_unavailable");
  // A portal page reloaded with the token it already used (or kept past its 5 minutes) while the frame's session
  // is still that agent's: the frame goes on with that session. Any other session, or none, gets the refusal.
  if (problem === "replayed" || problem === "expired") {
    try {
      const session = await sessionNamedByToken(token);
      if (session) {
        log.info("auth.embed_session_continued", { agentId: session.agentId, reason: problem });
        return noStoreJson(200, { prefill: session.prefill });
      }
    } catch (error) {
      log.error("auth.embed_session_failed", { error });
      return errorResponse("service_unavailable");
    }
  }
  countSignInRefusal("portal", problem);
  return errorResponse(TOKEN_ERRORS[problem]);
}
