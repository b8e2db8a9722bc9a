"use server";

import type { Route } from "next";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { AuthError } from "next-auth";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { signIn } from "@/auth";
import type { ActionState } from "@/lib/action-state";
import { passwordCredential } from "@/lib/auth/credential";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { newPasswordProblem, passwordProblemMessage } from "@/lib/auth/password-policy";
import {
  confirmKeyEnrolment,
  confirmTotpEnrolment,
  keyAssertionOptions,
  startKeyEnrolment,
  startTotpEnrolment,
  verifyFactorProof,
  type FactorProof,
} from "@/lib/auth/second-factor/factors";
import { enrolled, passwordChanged } from "@/lib/auth/second-factor/events";
import { FACTOR_MESSAGES } from "@/lib/errors/second-factor";
import { lockedMessage } from "@/lib/errors/wait";
import { startedBySignIn } from "@/lib/auth/second-factor/policy";
import { parseCredentialJson } from "@/lib/auth/second-factor/credential-json";
import {
  nextStep,
  STEPS_PATH,
  stepsCookie,
  stepsInProgress,
  type StepsInProgress,
} from "@/lib/auth/second-factor/steps";
import { signInErrorPath } from "@/lib/errors/sign-in";
import { getDb } from "@/lib/db";
import { changeOwnPassword } from "@/lib/db/queries/agents";
import { endChallenge, takeWebauthnChallenge, updateChallenge } from "@/lib/db/queries/sign-in-challenges";
import { getConfig } from "@/lib/env";
import { formPassword, formText } from "@/lib/validation/form-data";
import { textProblem } from "@/lib/validation/text";

/** The sign-in steps of this browser, or back to the sign-in page saying they expired. */
async function requireSteps(): Promise<StepsInProgress> {
  const steps = await stepsInProgress(await getDb());
  if (!steps) redirect(signInErrorPath("steps_expired") as Route);
  return steps;
}

/** After a step: the session when none is left (Auth.js sets its cookie and redirects), else the next step. */
async function goOn(steps: StepsInProgress): Promise<never> {
  const db = await getDb();
  const now = await stepsInProgress(db);
  if (!now || nextStep(now.challenge) !== "done") redirect(STEPS_PATH as Route);
  (await cookies()).delete(stepsCookie(getConfig()).name);
  try {
    await signIn("sign-in-steps", { token: steps.token, redirectTo: now.challenge.returnTo });
  } catch (error) {
    if (error instanceof AuthError) redirect(signInErrorPath("steps_expired") as Route);
    throw error; // the redirect to where the agent was going
  }
  redirect(now.challenge.returnTo as Route);
}

type CodeField = "code";

/** The second factor the account has, checked under the password's lockout. */
async function verify(steps: StepsInProgress, proof: FactorProof): Promise<ActionState<CodeField>> {
  const db = await getDb();
  if (nextStep(steps.challenge) !== "verify") redirect(STEPS_PATH as Route);
  const check = await verifyFactorProof(db, steps.agent, proof);
  if (check.ok) {
    await updateChallenge(db, steps.challenge.id, { secondFactorAt: new Date(), webauthnChallenge: null });
    return goOn(steps);
  }
  if (check.reason === "locked")
    return { ok: false, fieldErrors: {}, message: lockedMessage(check.retryAfterSeconds) };
  const message =
    proof.kind === "totp"
      ? check.reason === "replayed"
        ? FACTOR_MESSAGES.totpReplayed
        : FACTOR_MESSAGES.totpInvalid
      : proof.kind === "recovery_code"
        ? FACTOR_MESSAGES.recoveryInvalid
        : FACTOR_MESSAGES.keyInvalid;
  return { ok: false, fieldErrors: proof.kind === "webauthn" ? {} : { code: message }, message: null };
}

export async function verifyTotpStepAction(
  _previous: ActionState<CodeField>,
  formData: FormData,
): Promise<ActionState<CodeField>> {
  const steps = await requireSteps();
  const code = formText(formData, "code", 32);
  if (!code)
    return { ok: false, fieldErrors: { code: "Digite o código de 6 números do aplicativo." }, message: null };
  return verify(steps, { kind: "totp", code });
}

export async function verifyRecoveryCodeStepAction(
  _previous: ActionState<CodeField>,
  formData: FormData,
): Promise<ActionState<CodeField>> {
  const steps = await requireSteps();
  const code = formText(formData, "code", 64);
  if (!code)
    return { ok: false, fieldErrors: { code: "Digite um dos seus códigos de recuperação." }, message: null };
  return verify(steps, { kind: "recovery_code", code });
}

/** The options for the browser to ask the account's key for a signature; the challenge stays with the sign-in. */
export async function keyAssertionOptionsStepAction(): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
  const steps = await requireSteps();
  if (nextStep(steps.challenge) !== "verify") return null;
  const db = await getDb();
  const options = await keyAssertionOptions(db, steps.agent);
  if (!options) return null;
  await updateChallenge(db, steps.challenge.id, { webauthnChallenge: options.challenge });
  return options;
}

export async function verifyKeyStepAction(responseJson: unknown): Promise<ActionState<CodeField>> {
  const steps = await requireSteps();
  const response = parseCredentialJson(responseJson);
  if (!response) return { ok: false, fieldErrors: {}, message: FACTOR_MESSAGES.keyInvalid };
  // A challenge is signed once: the next try asks for a new one.
  const challenge = await takeWebauthnChallenge(await getDb(), steps.challenge.id);
  return verify(steps, { kind: "webauthn", response: response as never, expectedChallenge: challenge });
}

type PasswordField = "password" | "confirmation";

/** The new password a first sign-in with the operator's must choose (ASVS V6.4.1). */
export async function changePasswordStepAction(
  _previous: ActionState<PasswordField>,
  formData: FormData,
): Promise<ActionState<PasswordField>> {
  const steps = await requireSteps();
  if (nextStep(steps.challenge) !== "change_password") redirect(STEPS_PATH as Route);
  const password = formPassword(formData, "password");
  const confirmation = formPassword(formData, "confirmation");
  const problem = newPasswordProblem(password, steps.agent);
  if (problem)
    return { ok: false, fieldErrors: { password: passwordProblemMessage(problem) }, message: null };
  if (password !== confirmation) {
    return { ok: false, fieldErrors: { confirmation: FACTOR_MESSAGES.passwordsDiffer }, message: null };
  }
  if (await verifyPassword(steps.agent.passwordHash, password)) {
    return { ok: false, fieldErrors: { password: FACTOR_MESSAGES.samePassword }, message: null };
  }
  const db = await getDb();
  const passwordHash = await hashPassword(password);
  const credential = passwordCredential(passwordHash);
  const now = new Date();
  const changed = await changeOwnPassword(db, {
    agentId: steps.agent.id,
    previousHash: steps.agent.passwordHash!,
    passwordHash,
    keepSessionId: null,
    keepChallengeId: steps.challenge.id,
    credential,
    now,
  });
  if (!changed) redirect(signInErrorPath("steps_expired") as Route);
  await passwordChanged(changed, "sign_in");
  return goOn(steps);
}

/** Enrolment at sign-in: the authenticator app's secret, shown by the page (as a QR code and as text). */
export async function startTotpStepAction(): Promise<void> {
  const steps = await requireSteps();
  if (nextStep(steps.challenge) !== "enrol") redirect(STEPS_PATH as Route);
  await startTotpEnrolment(await getDb(), steps.agent, startedBySignIn(steps.challenge.id));
  redirect(`${STEPS_PATH}?factor=totp` as Route);
}

export type EnrolledState = ActionState<"code" | "current", { recoveryCodes: string[] }>;

export async function confirmTotpStepAction(
  _previous: EnrolledState,
  formData: FormData,
): Promise<EnrolledState> {
  const steps = await requireSteps();
  if (nextStep(steps.challenge) !== "enrol") redirect(STEPS_PATH as Route);
  const db = await getDb();
  const result = await confirmTotpEnrolment(
    db,
    steps.agent,
    formText(formData, "code", 32),
    "Aplicativo autenticador",
    startedBySignIn(steps.challenge.id),
  );
  if (!result.ok) {
    const message =
      result.reason === "expired" ? FACTOR_MESSAGES.enrolmentExpired : FACTOR_MESSAGES.enrolInvalidCode;
    return { ok: false, fieldErrors: { code: message }, message: null };
  }
  const recoveryCodes = await enrolled(db, steps.agent, result.factor, "password");
  await updateChallenge(db, steps.challenge.id, { secondFactorAt: new Date() });
  return { ok: true, data: { recoveryCodes }, message: null };
}

export async function keyRegistrationOptionsStepAction(): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const steps = await requireSteps();
  if (nextStep(steps.challenge) !== "enrol") redirect(STEPS_PATH as Route);
  return startKeyEnrolment(await getDb(), steps.agent, startedBySignIn(steps.challenge.id));
}

export async function confirmKeyStepAction(responseJson: unknown, label: unknown): Promise<EnrolledState> {
  const steps = await requireSteps();
  if (nextStep(steps.challenge) !== "enrol") redirect(STEPS_PATH as Route);
  const response = parseCredentialJson(responseJson);
  if (!response) return { ok: false, fieldErrors: {}, message: FACTOR_MESSAGES.keyInvalid };
  const db = await getDb();
  const result = await confirmKeyEnrolment(
    db,
    steps.agent,
    response as never,
    keyLabel(label),
    startedBySignIn(steps.challenge.id),
  );
  if (!result.ok) {
    const message =
      result.reason === "expired" ? FACTOR_MESSAGES.enrolmentExpired : FACTOR_MESSAGES.keyInvalid;
    return { ok: false, fieldErrors: {}, message };
  }
  const recoveryCodes = await enrolled(db, steps.agent, result.factor, "password");
  await updateChallenge(db, steps.challenge.id, { secondFactorAt: new Date() });
  return { ok: true, data: { recoveryCodes }, message: null };
}

/** What the agent calls a key: their words, one short line, or what it is. */
function keyLabel(label: unknown): string {
  const text = typeof label === "string" ? label.trim() : "";
  return text && text.length <= 60 && textProblem(text, { maxLength: 60 }) === null
    ? text
    : "Chave de segurança";
}

/** Every step done (the recovery codes read): the session. */
export async function finishStepsAction(): Promise<void> {
  const steps = await requireSteps();
  await goOn(steps);
}

/** Gives up the sign-in under way (another account, or later). */
export async function cancelStepsAction(): Promise<void> {
  const db = await getDb();
  const steps = await stepsInProgress(db);
  if (steps) await endChallenge(db, steps.challenge.id, new Date());
  (await cookies()).delete(stepsCookie(getConfig()).name);
  redirect("/sign-in");
}
