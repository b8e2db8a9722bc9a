"use server";

import type { Route } from "next";
import { redirect } from "next/navigation";
import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/server";
import type { ActionState } from "@/lib/action-state";
import { passwordCredential } from "@/lib/auth/credential";
import { hashPassword, verifyPassword } from "@/lib/auth/password";
import { newPasswordProblem, passwordProblemMessage } from "@/lib/auth/password-policy";
import { parseCredentialJson } from "@/lib/auth/second-factor/credential-json";
import {
  enrolled,
  passwordChanged,
  regenerateRecoveryCodes,
  removeOwnFactor,
} from "@/lib/auth/second-factor/events";
import {
  checkCurrentPassword,
  confirmKeyEnrolment,
  confirmTotpEnrolment,
  startKeyEnrolment,
  startTotpEnrolment,
} from "@/lib/auth/second-factor/factors";
import { FACTOR_MESSAGES } from "@/lib/errors/second-factor";
import { lockedMessage } from "@/lib/errors/wait";
import { secondFactorRequired, startedBySession } from "@/lib/auth/second-factor/policy";
import { requireAgent, type SessionAgent } from "@/lib/dal/session";
import { getDb } from "@/lib/db";
import { changeOwnPassword, findAgentById } from "@/lib/db/queries/agents";
import { factorSummary } from "@/lib/db/queries/second-factors";
import type { Agent } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { formPassword, formText } from "@/lib/validation/form-data";
import { textProblem } from "@/lib/validation/text";

const ACCOUNT_PATH = "/account";

/** The signed-in agent of a password session, with the account's row: only a password's owner changes it here. */
async function passwordSession(): Promise<{ session: SessionAgent; agent: Agent }> {
  const session = await requireAgent(ACCOUNT_PATH);
  const agent = await findAgentById(await getDb(), session.id);
  if (session.door !== "password" || !agent?.passwordHash) redirect(ACCOUNT_PATH as Route);
  return { session, agent };
}

/** The current password, asked again: null when right, else what the field says. */
async function recheck(agent: Agent, current: string): Promise<string | null> {
  const check = await checkCurrentPassword(await getDb(), agent, current);
  if (check.ok) return null;
  return check.retryAfterSeconds
    ? lockedMessage(check.retryAfterSeconds)
    : FACTOR_MESSAGES.currentPasswordWrong;
}

type PasswordField = "current" | "password" | "confirmation";

/** Self-service password change (ASVS V6.2.2, V6.2.3): the current one, then the new one twice. */
export async function changePasswordAction(
  _previous: ActionState<PasswordField>,
  formData: FormData,
): Promise<ActionState<PasswordField>> {
  const { session, agent } = await passwordSession();
  const current = formText(formData, "current", 256);
  const password = formPassword(formData, "password");
  const confirmation = formPassword(formData, "confirmation");
  if (!current) return { ok: false, fieldErrors: { current: "Informe a senha atual." }, message: null };
  const problem = newPasswordProblem(password, agent);
  if (problem)
    return { ok: false, fieldErrors: { password: passwordProblemMessage(problem) }, message: null };
  if (password !== confirmation) {
    return { ok: false, fieldErrors: { confirmation: FACTOR_MESSAGES.passwordsDiffer }, message: null };
  }
  const wrong = await recheck(agent, current);
  if (wrong) return { ok: false, fieldErrors: { current: wrong }, message: null };
  if (await verifyPassword(agent.passwordHash, password)) {
    return { ok: false, fieldErrors: { password: FACTOR_MESSAGES.samePassword }, message: null };
  }
  const passwordHash = await hashPassword(password);
  const change = await changeOwnPassword(await getDb(), {
    agentId: agent.id,
    previousHash: agent.passwordHash!,
    passwordHash,
    keepSessionId: session.sessionId,
    credential: passwordCredential(passwordHash),
    now: new Date(),
  });
  if (!change) redirect(ACCOUNT_PATH as Route);
  await passwordChanged(change, "account_page");
  const others = change.endedSessions.length;
  return {
    ok: true,
    data: undefined,
    message:
      others === 0
        ? "Senha alterada."
        : `Senha alterada. ${others === 1 ? "A sua outra sessão foi encerrada" : `As suas outras ${others} sessões foram encerradas`}.`,
  };
}

export async function startTotpAction(): Promise<void> {
  const { session, agent } = await passwordSession();
  await startTotpEnrolment(await getDb(), agent, startedBySession(session.sessionId));
  redirect(`${ACCOUNT_PATH}?add=totp#add-factor` as Route);
}

type Enrolled = ActionState<"code" | "current", { recoveryCodes: string[] }>;

export async function confirmTotpAction(_previous: Enrolled, formData: FormData): Promise<Enrolled> {
  const { session, agent } = await passwordSession();
  const wrong = await recheck(agent, formText(formData, "current", 256));
  if (wrong) return { ok: false, fieldErrors: { current: wrong }, message: null };
  const db = await getDb();
  const result = await confirmTotpEnrolment(
    db,
    agent,
    formText(formData, "code", 32),
    "Aplicativo autenticador",
    startedBySession(session.sessionId),
  );
  if (!result.ok) {
    const message =
      result.reason === "expired" ? FACTOR_MESSAGES.enrolmentExpired : FACTOR_MESSAGES.enrolInvalidCode;
    return { ok: false, fieldErrors: { code: message }, message: null };
  }
  return {
    ok: true,
    data: { recoveryCodes: await enrolled(db, agent, result.factor, session.door) },
    message: null,
  };
}

export async function keyRegistrationOptionsAction(): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { session, agent } = await passwordSession();
  return startKeyEnrolment(await getDb(), agent, startedBySession(session.sessionId));
}

export async function confirmKeyAction(
  responseJson: unknown,
  label: unknown,
  current: unknown,
): Promise<Enrolled> {
  const { session, agent } = await passwordSession();
  const wrong = await recheck(agent, typeof current === "string" && current.length <= 256 ? current : "");
  if (wrong) return { ok: false, fieldErrors: { current: wrong }, message: wrong };
  const response = parseCredentialJson(responseJson);
  if (!response) return { ok: false, fieldErrors: {}, message: FACTOR_MESSAGES.keyInvalid };
  const db = await getDb();
  const name =
    typeof label === "string" && label.trim() && textProblem(label, { maxLength: 60 }) === null
      ? label.trim()
      : "Chave de segurança";
  const result = await confirmKeyEnrolment(
    db,
    agent,
    response as never,
    name,
    startedBySession(session.sessionId),
  );
  if (!result.ok) {
    const message =
      result.reason === "expired" ? FACTOR_MESSAGES.enrolmentExpired : FACTOR_MESSAGES.keyInvalid;
    return { ok: false, fieldErrors: {}, message };
  }
  return {
    ok: true,
    data: { recoveryCodes: await enrolled(db, agent, result.factor, session.door) },
    message: null,
  };
}

type Confirmed = ActionState<"current", { recoveryCodes: string[] }>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function removeFactorAction(_previous: Confirmed, formData: FormData): Promise<Confirmed> {
  const { session, agent } = await passwordSession();
  const factorId = formText(formData, "factorId", 36);
  if (!UUID.test(factorId)) redirect(ACCOUNT_PATH as Route);
  const db = await getDb();
  const summary = await factorSummary(db, agent.id);
  if (
    summary.totp + summary.webauthn <= 1 &&
    secondFactorRequired(getConfig().passwordSecondFactor, agent.role)
  ) {
    return { ok: false, fieldErrors: {}, message: FACTOR_MESSAGES.lastFactor };
  }
  const wrong = await recheck(agent, formText(formData, "current", 256));
  if (wrong) return { ok: false, fieldErrors: { current: wrong }, message: null };
  const removed = await removeOwnFactor(db, agent, factorId, session.door);
  redirect((removed ? `${ACCOUNT_PATH}?removed=1` : ACCOUNT_PATH) as Route);
}

export async function regenerateCodesAction(_previous: Confirmed, formData: FormData): Promise<Confirmed> {
  const { session, agent } = await passwordSession();
  const db = await getDb();
  const summary = await factorSummary(db, agent.id);
  if (summary.totp + summary.webauthn === 0) redirect(ACCOUNT_PATH as Route);
  const wrong = await recheck(agent, formText(formData, "current", 256));
  if (wrong) return { ok: false, fieldErrors: { current: wrong }, message: null };
  return {
    ok: true,
    data: { recoveryCodes: await regenerateRecoveryCodes(db, agent, session.door) },
    message: null,
  };
}
