import "server-only";
import { pendingTotp } from "@/lib/auth/second-factor/factors";
import { secondFactorRequired, startedBySession, startedBySignIn } from "@/lib/auth/second-factor/policy";
import { nextStep, stepsInProgress, type Step } from "@/lib/auth/second-factor/steps";
import { qrPath } from "@/lib/auth/second-factor/totp";
import { getDb } from "@/lib/db";
import { findAgentById } from "@/lib/db/queries/agents";
import { factorSummary, listFactors } from "@/lib/db/queries/second-factors";
import type { SecondFactorKind } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import type { SessionAgent } from "./session";

/** An authenticator-app enrolment under way, as the page shows it: the QR code drawn here and the key as text. */
export interface TotpSetup {
  qr: { size: number; path: string };
  secret: string;
}

async function totpSetup(
  agent: { id: string; email: string; name: string },
  startedBy: string,
): Promise<TotpSetup | null> {
  const pending = await pendingTotp(await getDb(), agent, startedBy);
  return pending ? { qr: qrPath(pending.uri), secret: pending.secret } : null;
}

export interface StepsView {
  step: Step;
  email: string;
  factors: { totp: number; webauthn: number; recoveryCodes: number };
  totp: TotpSetup | null;
}

/** This browser's password sign-in under way, as its page shows it; null when there is none (or it expired). */
export async function signInStepsView(options: { showTotp: boolean }): Promise<StepsView | null> {
  const db = await getDb();
  const steps = await stepsInProgress(db);
  if (!steps) return null;
  const step = nextStep(steps.challenge);
  return {
    step,
    email: steps.agent.email,
    factors: await factorSummary(db, steps.agent.id),
    totp:
      step === "enrol" && options.showTotp
        ? await totpSetup(steps.agent, startedBySignIn(steps.challenge.id))
        : null,
  };
}

export interface AccountView {
  email: string;
  /** The policy asks this account for a second factor. */
  required: boolean;
  factors: { id: string; kind: SecondFactorKind; label: string; createdAt: Date; lastUsedAt: Date | null }[];
  recoveryCodes: number;
  totp: TotpSetup | null;
}

/** The account page of a password session; null for the other doors (the IdP or portal keeps their credentials). */
export async function accountView(
  session: SessionAgent,
  options: { showTotp: boolean },
): Promise<AccountView | null> {
  const db = await getDb();
  const agent = await findAgentById(db, session.id);
  if (session.door !== "password" || !agent?.passwordHash) return null;
  const [factors, summary] = await Promise.all([listFactors(db, agent.id), factorSummary(db, agent.id)]);
  return {
    email: agent.email,
    required: secondFactorRequired(getConfig().passwordSecondFactor, agent.role),
    factors: factors.map(({ id, kind, label, createdAt, lastUsedAt }) => ({
      id,
      kind,
      label,
      createdAt,
      lastUsedAt,
    })),
    recoveryCodes: summary.recoveryCodes,
    totp: options.showTotp ? await totpSetup(agent, startedBySession(session.sessionId)) : null,
  };
}
