import "server-only";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { verifyPassword } from "@/lib/auth/password";
import { resolveAuthSecret } from "@/lib/auth/secret";
import { ACCOUNT_POLICY, accountKey } from "@/lib/auth/sign-in";
import type { Database } from "@/lib/db/connection";
import {
  confirmEnrolment,
  findCredential,
  listFactors,
  pendingEnrolment,
  recordKeyUse,
  replaceRecoveryCodes,
  spendRecoveryCode,
  startEnrolment,
  takeTotpStep,
  unusedRecoveryCodes,
} from "@/lib/db/queries/second-factors";
import { countAttempt, lockIfSpent, uncountAttempt } from "@/lib/db/queries/sign-in-throttle";
import type { Agent, SecondFactor } from "@/lib/db/schema";
import { isUniqueViolation } from "@/lib/db/unique-violation";
import { getConfig } from "@/lib/env";
import { securityEvent } from "@/lib/security-log";
import type { FactorName } from "./policy";
import { matchRecoveryCode, newRecoveryCodes } from "./recovery-codes";
import { seal, unseal } from "./sealed";
import { newTotpSecret, normalizeTotpCode, totpStep, totpUri } from "./totp";
import {
  authenticationOptions,
  registrationOptions,
  relyingParty,
  verifyAssertion,
  verifyRegistration,
} from "./webauthn";

type AgentRef = Pick<Agent, "id" | "email" | "name">;

/** What proves the second factor at sign-in. */
export type FactorProof =
  | { kind: "totp"; code: string }
  | { kind: "recovery_code"; code: string }
  | { kind: "webauthn"; response: AuthenticationResponseJSON; expectedChallenge: string | null };

export type FactorCheck =
  | { ok: true; factor: FactorName }
  | { ok: false; reason: "invalid" | "replayed"; factor: FactorName }
  | { ok: false; reason: "locked"; factor: FactorName; retryAfterSeconds: number };

const secret = () => resolveAuthSecret(getConfig());
const sealContext = (agentId: string) => `totp:${agentId}`;

async function checkProof(
  db: Database,
  agent: AgentRef,
  proof: FactorProof,
  now: Date,
): Promise<"ok" | "invalid" | "replayed"> {
  if (proof.kind === "totp") {
    const code = normalizeTotpCode(proof.code);
    if (!code) return "invalid";
    const factors = (await listFactors(db, agent.id)).filter((factor) => factor.kind === "totp");
    for (const factor of factors) {
      const shared = factor.totpSecret ? unseal(factor.totpSecret, secret(), sealContext(agent.id)) : null;
      const step = shared ? totpStep(shared, code, now.getTime()) : null;
      if (step === null) continue;
      return (await takeTotpStep(db, factor.id, step, now)) ? "ok" : "replayed";
    }
    return "invalid";
  }
  if (proof.kind === "recovery_code") {
    const match = await matchRecoveryCode(await unusedRecoveryCodes(db, agent.id), proof.code);
    return match && (await spendRecoveryCode(db, match.id, now)) ? "ok" : "invalid";
  }
  if (!proof.expectedChallenge || typeof proof.response?.id !== "string") return "invalid";
  const key = await findCredential(db, agent.id, proof.response.id);
  if (!key) return "invalid";
  const verified = await verifyAssertion(
    relyingParty(getConfig().publicUrl),
    proof.response,
    proof.expectedChallenge,
    key,
  );
  if (!verified) return "invalid";
  await recordKeyUse(db, key.id, verified.signCount, now);
  return "ok";
}

/**
 * Checks a second factor at sign-in under the password's own limit (ASVS V6.3.1): the attempt is counted on the
 * account before it is checked, so codes guessed in parallel get at most the policy's tries, and a failure counts
 * toward the same lockout as a wrong password. Each check is one line in the security log.
 */
export async function verifyFactorProof(
  db: Database,
  agent: AgentRef,
  proof: FactorProof,
  now = new Date(),
): Promise<FactorCheck> {
  const key = accountKey(agent.email);
  const factor = proof.kind;
  const fields = { door: "password", agentId: agent.id, details: { factor } };
  const lockedFor = (until: Date) => Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  const locked = await countAttempt(db, key, ACCOUNT_POLICY, now);
  if (locked) {
    await securityEvent("auth.second_factor", { ...fields, outcome: "failure", reason: "locked" });
    return { ok: false, reason: "locked", factor, retryAfterSeconds: lockedFor(locked) };
  }
  const outcome = await checkProof(db, agent, proof, now);
  if (outcome === "ok") {
    await uncountAttempt(db, key);
    await securityEvent("auth.second_factor", { ...fields, outcome: "success" });
    return { ok: true, factor };
  }
  await securityEvent("auth.second_factor", { ...fields, outcome: "failure", reason: outcome });
  const lock = await lockIfSpent(db, key, ACCOUNT_POLICY, now);
  if (lock) {
    const retryAfterSeconds = lockedFor(lock);
    await securityEvent("auth.lockout", {
      ...fields,
      outcome: "failure",
      reason: "account",
      details: { factor, retryAfterSeconds },
    });
    return { ok: false, reason: "locked", factor, retryAfterSeconds };
  }
  return { ok: false, reason: outcome, factor };
}

export type PasswordCheck = { ok: true } | { ok: false; retryAfterSeconds: number | null };

/**
 * The current password asked again on the account page before its password or factors change (ASVS V7.5.1), under
 * the sign-in's own limit: a stolen session cannot guess it more often than a sign-in could.
 */
export async function checkCurrentPassword(
  db: Database,
  agent: Pick<Agent, "id" | "email" | "passwordHash">,
  password: string,
  now = new Date(),
): Promise<PasswordCheck> {
  const key = accountKey(agent.email);
  const fields = { door: "password", agentId: agent.id };
  const lockedFor = (until: Date) => Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  const locked = await countAttempt(db, key, ACCOUNT_POLICY, now);
  if (locked) {
    await securityEvent("auth.reauthentication", { ...fields, outcome: "failure", reason: "locked" });
    return { ok: false, retryAfterSeconds: lockedFor(locked) };
  }
  if (password && (await verifyPassword(agent.passwordHash, password))) {
    await uncountAttempt(db, key);
    return { ok: true };
  }
  await securityEvent("auth.reauthentication", { ...fields, outcome: "failure", reason: "invalid" });
  const lock = await lockIfSpent(db, key, ACCOUNT_POLICY, now);
  return { ok: false, retryAfterSeconds: lock ? lockedFor(lock) : null };
}

/** The options for a key's signature at sign-in, and the challenge to keep; null when the account has no key. */
export async function keyAssertionOptions(db: Database, agent: AgentRef) {
  const keys = (await listFactors(db, agent.id)).filter((factor) => factor.kind === "webauthn");
  if (keys.length === 0) return null;
  return authenticationOptions(relyingParty(getConfig().publicUrl), keys);
}

/** A new authenticator-app enrolment: its secret (to show once, as a QR code and as text) and the otpauth URI. */
export async function startTotpEnrolment(db: Database, agent: AgentRef, startedBy: string) {
  const shared = newTotpSecret();
  await startEnrolment(db, {
    agentId: agent.id,
    kind: "totp",
    label: "Aplicativo autenticador",
    startedBy,
    totpSecret: seal(shared, secret(), sealContext(agent.id)),
  });
  return { secret: shared, uri: totpUri(shared, agent.email) };
}

/** The enrolment under way, to show again (a page reload): its secret and URI. */
export async function pendingTotp(db: Database, agent: AgentRef, startedBy: string, now = new Date()) {
  const pending = await pendingEnrolment(db, agent.id, "totp", now, startedBy);
  const shared = pending?.totpSecret ? unseal(pending.totpSecret, secret(), sealContext(agent.id)) : null;
  return shared ? { secret: shared, uri: totpUri(shared, agent.email) } : null;
}

export type Enrolment = { ok: true; factor: SecondFactor } | { ok: false; reason: "expired" | "invalid" };

/** Finishes an authenticator-app enrolment with its first code (which is then used: it cannot sign in). */
export async function confirmTotpEnrolment(
  db: Database,
  agent: AgentRef,
  typed: string,
  label: string,
  startedBy: string,
  now = new Date(),
): Promise<Enrolment> {
  const pending = await pendingEnrolment(db, agent.id, "totp", now, startedBy);
  const shared = pending?.totpSecret ? unseal(pending.totpSecret, secret(), sealContext(agent.id)) : null;
  if (!pending || !shared) return { ok: false, reason: "expired" };
  const code = normalizeTotpCode(typed);
  const step = code ? totpStep(shared, code, now.getTime()) : null;
  if (step === null) return { ok: false, reason: "invalid" };
  const factor = await confirmEnrolment(db, pending.id, now, { totpLastStep: step, label });
  return factor ? { ok: true, factor } : { ok: false, reason: "expired" };
}

/** Options for a new key or passkey; the challenge is kept with the enrolment. */
export async function startKeyEnrolment(db: Database, agent: AgentRef, startedBy: string) {
  const existing = (await listFactors(db, agent.id)).filter((factor) => factor.kind === "webauthn");
  const options = await registrationOptions(relyingParty(getConfig().publicUrl), agent, existing);
  await startEnrolment(db, {
    agentId: agent.id,
    kind: "webauthn",
    label: "Chave de segurança",
    startedBy,
    challenge: options.challenge,
  });
  return options;
}

export async function confirmKeyEnrolment(
  db: Database,
  agent: AgentRef,
  response: RegistrationResponseJSON,
  label: string,
  startedBy: string,
  now = new Date(),
): Promise<Enrolment> {
  const pending = await pendingEnrolment(db, agent.id, "webauthn", now, startedBy);
  if (!pending?.challenge) return { ok: false, reason: "expired" };
  const key = await verifyRegistration(relyingParty(getConfig().publicUrl), response, pending.challenge);
  if (!key) return { ok: false, reason: "invalid" };
  try {
    const factor = await confirmEnrolment(db, pending.id, now, { ...key, label });
    return factor ? { ok: true, factor } : { ok: false, reason: "expired" };
  } catch (error) {
    // A key already enrolled (the unique credential id); anything else is the database's, and goes on up.
    if (isUniqueViolation(error)) return { ok: false, reason: "invalid" };
    throw error;
  }
}

/** Ten new recovery codes for the account (the earlier ones stop working): shown once, stored hashed. */
export async function issueRecoveryCodes(db: Database, agentId: string): Promise<string[]> {
  const { codes, hashes } = await newRecoveryCodes();
  await replaceRecoveryCodes(db, agentId, hashes);
  return codes;
}
