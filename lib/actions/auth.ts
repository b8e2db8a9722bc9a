"use server";

import type { Route } from "next";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { AuthError, CredentialsSignin } from "next-auth";
import { AccountLockedError, signIn, SignInBusyError, SignInStepsError, signOut } from "@/auth";
import type { ActionState } from "@/lib/action-state";
import { withOidcAttempt } from "@/lib/auth/oidc-attempt";
import { OIDC_PROVIDER_ID } from "@/lib/config/oidc";
import { newStepsToken, STEPS_PATH, stepsCookie } from "@/lib/auth/second-factor/steps";
import { signInErrorPath } from "@/lib/errors/sign-in";
import { getConfig } from "@/lib/env";
import { endOtherSessions, endSessionNamedBy, verifySession } from "@/lib/dal/session";
import { signInOptions } from "@/lib/dal/sign-in-options";
import type { DoorKind } from "@/lib/db/schema";
import { userMessageFor } from "@/lib/errors";
import { lockedMessage } from "@/lib/errors/wait";
import { safeReturnPath } from "@/lib/safe-return-path";
import { parseSignInCredentials, type SignInField } from "@/lib/validation/sign-in";

export type { SignInField } from "@/lib/validation/sign-in";

function refusalMessage(error: CredentialsSignin): string {
  if (error instanceof AccountLockedError) return lockedMessage(error.retryAfterSeconds);
  if (error instanceof SignInBusyError) return userMessageFor("busy");
  return userMessageFor("invalid_credentials");
}

export async function signInAction(
  _previous: ActionState<SignInField>,
  formData: FormData,
): Promise<ActionState<SignInField>> {
  if (!signInOptions().password) {
    return { ok: false, fieldErrors: {}, message: userMessageFor("password_sign_in_off") };
  }
  const rawEmail = formData.get("email");
  const credentials = parseSignInCredentials({ email: rawEmail, password: formData.get("password") });
  // What was typed goes back to the form, but never more of it than an e-mail can be.
  const values = { email: typeof rawEmail === "string" ? rawEmail.trim().slice(0, 254) : "" };
  if (!credentials.ok) {
    const missing = Object.keys(credentials.fieldErrors).length > 0;
    return {
      ok: false,
      fieldErrors: credentials.fieldErrors,
      message: missing ? null : userMessageFor("invalid_credentials"),
      values,
    };
  }

  // Kept by the password check if the sign-in has steps left (a second factor, a new password): then this browser
  // holds it in an HttpOnly cookie and goes on to them.
  const challenge = newStepsToken();
  const returnTo = safeReturnPath(formData.get("callbackUrl"));
  try {
    await signIn("credentials", {
      email: credentials.email,
      password: credentials.password,
      challenge,
      returnTo,
      redirectTo: returnTo,
    });
  } catch (error) {
    if (error instanceof SignInStepsError) {
      const cookie = stepsCookie(getConfig());
      (await cookies()).set(cookie.name, challenge, cookie.options);
      redirect(STEPS_PATH as Route);
    }
    if (error instanceof CredentialsSignin) {
      return { ok: false, fieldErrors: {}, message: refusalMessage(error), values };
    }
    if (error instanceof AuthError) {
      return { ok: false, fieldErrors: {}, message: userMessageFor("service_unavailable"), values };
    }
    throw error; // the redirect to the page that was asked for
  }
  return { ok: true, data: undefined, message: null };
}

/**
 * Sends the agent to the partner's IdP (Auth.js sets the PKCE, state and nonce cookies on the way), or back to the
 * sign-in page saying why not (the IdP unreachable, most likely).
 */
export async function oidcSignInAction(formData: FormData): Promise<void> {
  if (!signInOptions().oidc) redirect("/sign-in");
  const redirectTo = safeReturnPath(formData.get("callbackUrl"));
  const started = await withOidcAttempt<string>("start", () =>
    signIn(OIDC_PROVIDER_ID, { redirect: false, redirectTo }),
  );
  redirect((started.ok ? started.value : signInErrorPath(started.failure)) as Route);
}

/** After an OIDC session, the sign-in page offers to end the IdP's session too (RP-initiated logout). */
const signedOutPage = (method: DoorKind | null) =>
  method === "oidc" && signInOptions().oidc ? "/sign-in?signedOut=oidc" : "/sign-in";

/**
 * Ends this session's row first, so that a failure (the database down) shows the error page and keeps the agent
 * signed in to try again, rather than clearing the cookie while the session lives on for whoever copied it.
 * (Auth.js's own `POST /api/auth/signout` does the same in its route handler.)
 */
export async function signOutAction(): Promise<void> {
  const ended = await endSessionNamedBy((await headers()).get("cookie"), "signed_out");
  await signOut({ redirectTo: signedOutPage(ended?.method ?? null) });
}

/** Ends every session of the signed-in agent (other browsers, a PC left signed in), then this one's cookie. */
export async function signOutEverywhereAction(): Promise<void> {
  const agent = await verifySession();
  if (agent) await endOtherSessions(agent);
  const ended = await endSessionNamedBy((await headers()).get("cookie"), "signed_out");
  await signOut({ redirectTo: signedOutPage(ended?.method ?? null) });
}
