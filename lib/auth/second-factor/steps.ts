import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { cookies } from "next/headers";
import { passwordCredential } from "@/lib/auth/credential";
import { authCookies } from "@/lib/auth/session-cookie";
import type { Config } from "@/lib/config/parse";
import type { Database } from "@/lib/db/connection";
import { housekeepingDue } from "@/lib/db/housekeeping";
import { findAgentById } from "@/lib/db/queries/agents";
import { factorSummary } from "@/lib/db/queries/second-factors";
import { createChallenge, findOpenChallenge, pruneChallenges } from "@/lib/db/queries/sign-in-challenges";
import type { Agent, SignInChallenge } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { secondFactorRequired } from "./policy";

/**
 * A password sign-in that has steps left (a second factor to verify or enrol, a password to change) is a row of
 * `sign_in_challenges` for ten minutes, and a random token in an HttpOnly cookie; the session is opened only when
 * every step is done (auth.ts, the `sign-in-steps` provider).
 */
export const STEPS_TTL_MS = 10 * 60_000;
export const STEPS_PATH = "/sign-in/steps";

export type Step = "verify" | "change_password" | "enrol" | "done";

/** In this order: the factor the account has before anything changes, then the new password, then a new factor. */
export function nextStep(challenge: SignInChallenge): Step {
  if (challenge.verifyFactor && !challenge.secondFactorAt) return "verify";
  if (challenge.changePassword && !challenge.passwordChangedAt) return "change_password";
  if (challenge.enrolFactor && !challenge.secondFactorAt) return "enrol";
  return "done";
}

export const newStepsToken = () => randomBytes(32).toString("base64url");
export const isStepsToken = (value: unknown): value is string =>
  typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);
export const stepsTokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

export function stepsCookie(config: Pick<Config, "publicUrl" | "embed">) {
  const session = authCookies(config).sessionToken;
  const prefix = session.name.startsWith("__Host-") ? "__Host-" : "";
  return {
    name: `${prefix}partner-sales.sign-in-steps`,
    options: { ...session.options, maxAge: STEPS_TTL_MS / 1000 },
  };
}

/** What a password sign-in of `agent` must still do; null when the password is enough. */
export async function stepsAfterPassword(
  db: Database,
  agent: Agent,
  policy: Config["passwordSecondFactor"],
): Promise<Pick<SignInChallenge, "verifyFactor" | "enrolFactor" | "changePassword"> | null> {
  const factors = await factorSummary(db, agent.id);
  const hasFactor = factors.totp + factors.webauthn > 0;
  const steps = {
    verifyFactor: hasFactor,
    enrolFactor: !hasFactor && secondFactorRequired(policy, agent.role),
    changePassword: agent.passwordChangeRequired,
  };
  return steps.verifyFactor || steps.enrolFactor || steps.changePassword ? steps : null;
}

export async function beginSteps(
  db: Database,
  input: Pick<
    SignInChallenge,
    "agentId" | "credential" | "verifyFactor" | "enrolFactor" | "changePassword" | "returnTo"
  > & {
    token: string;
  },
  now = new Date(),
): Promise<void> {
  if (housekeepingDue(db, "sign-in-challenges", now)) await pruneChallenges(db, now);
  const { token, ...steps } = input;
  await createChallenge(db, {
    ...steps,
    tokenHash: stepsTokenHash(token),
    expiresAt: new Date(now.getTime() + STEPS_TTL_MS),
  });
}

export interface StepsInProgress {
  token: string;
  challenge: SignInChallenge;
  agent: Agent;
}

/** This browser's sign-in under way (its cookie, its open row, its enabled agent); null when there is none. */
export async function stepsInProgress(db: Database, now = new Date()): Promise<StepsInProgress | null> {
  const token = (await cookies()).get(stepsCookie(getConfig()).name)?.value;
  if (!isStepsToken(token)) return null;
  const challenge = await findOpenChallenge(db, stepsTokenHash(token), now);
  if (!challenge) return null;
  const agent = await findAgentById(db, challenge.agentId);
  if (!agent || agent.disabledAt || !agent.passwordHash) return null;
  // The password changed since (the operator's reset, the person's own change elsewhere): these steps were opened
  // with one that no longer signs in, and must not go on to set a new one or enrol a factor.
  if (passwordCredential(agent.passwordHash) !== challenge.credential) return null;
  // An enrolment asked for when the account had no factor, and it has one now (enrolled elsewhere): not another.
  if (nextStep(challenge) === "enrol") {
    const factors = await factorSummary(db, agent.id);
    if (factors.totp + factors.webauthn > 0) return null;
  }
  return { token, challenge, agent };
}
