import type { SecondFactorPolicy } from "@/lib/config/parse";
import type { AgentRole } from "@/lib/db/schema";

/** Whether the policy makes a password sign-in of this role enrol a second factor (one added is always asked for). */
export function secondFactorRequired(policy: SecondFactorPolicy, role: AgentRole): boolean {
  return policy === "required" || (policy === "supervisors" && role === "supervisor");
}

export type FactorName = "totp" | "webauthn" | "recovery_code";

/** Who started an enrolment (second_factors.started_by): a sign-in's steps, or a session on the account page. */
export const startedBySignIn = (challengeId: string) => `sign-in:${challengeId}`;
export const startedBySession = (sessionId: string) => `session:${sessionId}`;
