import "server-only";
import { passwordCredential } from "@/lib/auth/credential";
import { completeSignIn } from "@/lib/auth/sign-in";
import { getDb } from "@/lib/db";
import { findAgentById } from "@/lib/db/queries/agents";
import { completeChallenge } from "@/lib/db/queries/sign-in-challenges";
import type { Agent } from "@/lib/db/schema";
import { getConfig } from "@/lib/env";
import { safeReturnPath } from "@/lib/safe-return-path";
import { securityEvent } from "@/lib/security-log";
import { beginSteps, isStepsToken, stepsAfterPassword, stepsTokenHash } from "./steps";

/**
 * After the right password: whether the sign-in has steps left. If so, and the sign-in form sent a token for them,
 * they are recorded under it; the caller refuses the password sign-in itself either way.
 */
export async function passwordSignInSteps(
  agent: Agent,
  sent: { challenge: unknown; returnTo: unknown },
): Promise<boolean> {
  const db = await getDb();
  const steps = await stepsAfterPassword(db, agent, getConfig().passwordSecondFactor);
  if (!steps) return false;
  // The password was right: said in the log even when the steps are never finished (ASVS V16.3.1).
  await securityEvent("auth.password_verified", {
    outcome: "success",
    door: "password",
    agentId: agent.id,
    reason: "steps_pending",
    details: {
      verifyFactor: steps.verifyFactor,
      enrolFactor: steps.enrolFactor,
      changePassword: steps.changePassword,
    },
  });
  if (isStepsToken(sent.challenge)) {
    await beginSteps(db, {
      ...steps,
      token: sent.challenge,
      agentId: agent.id,
      credential: passwordCredential(agent.passwordHash!),
      returnTo: safeReturnPath(sent.returnTo),
    });
  }
  return true;
}

/**
 * Completes the sign-in the token names, once, when every step is done: its agent, still enabled and with the
 * password the steps ended with (an operator's reset meanwhile ends it); null otherwise.
 */
export async function completeSignInSteps(token: unknown, now = new Date()): Promise<Agent | null> {
  if (!isStepsToken(token)) return null;
  const db = await getDb();
  const challenge = await completeChallenge(db, stepsTokenHash(token), now);
  if (!challenge) return null;
  const agent = await findAgentById(db, challenge.agentId);
  if (!agent?.passwordHash || agent.disabledAt) return null;
  if (passwordCredential(agent.passwordHash) !== challenge.credential) return null;
  await completeSignIn(db, agent.email);
  return agent;
}
