import "server-only";
import type { Database } from "@/lib/db/connection";
import { housekeepingDue } from "@/lib/db/housekeeping";
import { findAgentByEmail, normalizeEmail } from "@/lib/db/queries/agents";
import {
  clearFailures,
  countAttempt,
  lockIfSpent,
  pruneThrottle,
  uncountAttempt,
  type ThrottlePolicy,
} from "@/lib/db/queries/sign-in-throttle";
import type { Agent } from "@/lib/db/schema";
import { BoundedQueue, QueueFullError } from "@/lib/bounded-queue";
import { verifyPassword } from "./password";

const MINUTE = 60_000;

/** 5 failures in 15 minutes lock an account for 5 minutes, then 10, 20… up to an hour. */
export const ACCOUNT_POLICY: ThrottlePolicy = {
  maxFailures: 5,
  windowMs: 15 * MINUTE,
  baseLockoutMs: 5 * MINUTE,
  maxLockoutMs: 60 * MINUTE,
};

// A call center signs in from one address behind its NAT: the per-address limit is for sprays across many
// accounts, not for one agent's typos.
export const ADDRESS_POLICY: ThrottlePolicy = {
  maxFailures: 50,
  windowMs: 15 * MINUTE,
  baseLockoutMs: 5 * MINUTE,
  maxLockoutMs: 60 * MINUTE,
};

/**
 * `agentId` (for the security log, never for the person signing in, who reads the same message either way): the
 * account the e-mail typed belongs to, when one does. `lockout`: this failure locked the account or the address.
 */
export type SignInResult =
  | { ok: true; agent: Agent }
  | { ok: false; reason: "invalid"; agentId?: string }
  /** Too many sign-ins under way: nothing was read, checked or counted; the person may try again at once. */
  | { ok: false; reason: "busy" }
  | {
      ok: false;
      reason: "locked";
      retryAfterSeconds: number;
      agentId?: string;
      lockout?: "account" | "address";
    };

export const accountKey = (email: string) => `account:${normalizeEmail(email)}`;
export const addressKey = (address: string) => `address:${address}`;

// A password sign-in makes four to six database round trips. Unbounded, a flood of them holds every pooled
// connection, and sales and honest sign-ins wait past the pool's timeout: at most four run at once (the pool has
// ten), 32 wait, and the rest are told "busy" at once, nothing read or counted.
export const SIGN_IN_ADMISSION = { running: 4, waiting: 32 } as const;
const signIns = new BoundedQueue(SIGN_IN_ADMISSION.running, SIGN_IN_ADMISSION.waiting);

/**
 * Every attempt is counted on the account and on the address before the password is checked (so twenty guesses
 * sent at once still get at most five checks), and taken back when it succeeds or was never checked.
 */
export async function authenticateAgent(
  db: Database,
  credentials: { email: string; password: string; address: string },
  now: Date = new Date(),
): Promise<SignInResult> {
  try {
    return await signIns.run(() => checkCredentials(db, credentials, now));
  } catch (error) {
    if (error instanceof QueueFullError) return { ok: false, reason: "busy" };
    throw error;
  }
}

async function checkCredentials(
  db: Database,
  credentials: { email: string; password: string; address: string },
  now: Date,
): Promise<SignInResult> {
  const account = accountKey(credentials.email);
  const address = addressKey(credentials.address);
  const lockedUntil = (
    until: Date,
    about: { agentId?: string; lockout?: "account" | "address" } = {},
  ): SignInResult => ({
    ok: false,
    reason: "locked",
    retryAfterSeconds: Math.ceil((until.getTime() - now.getTime()) / 1000),
    ...about,
  });

  if (housekeepingDue(db, "sign-in-throttle", now)) await pruneThrottle(db, now);
  const lockedAccount = await countAttempt(db, account, ACCOUNT_POLICY, now);
  // Named in the security log even while it is locked: repeated guesses at one account stay together.
  if (lockedAccount)
    return lockedUntil(lockedAccount, { agentId: (await findAgentByEmail(db, credentials.email))?.id });
  const lockedAddress = await countAttempt(db, address, ADDRESS_POLICY, now);
  if (lockedAddress) {
    await uncountAttempt(db, account);
    return lockedUntil(lockedAddress);
  }

  const agent = await findAgentByEmail(db, credentials.email);
  const passwordMatches = await verifyPassword(agent?.passwordHash ?? null, credentials.password);
  if (agent && passwordMatches && !agent.disabledAt) {
    // Only taken back: the account's failures are cleared when the whole sign-in succeeds (completeSignIn), so a
    // password known to an attacker does not reset the count of second-factor codes they guessed.
    await Promise.all([uncountAttempt(db, account), uncountAttempt(db, address)]);
    return { ok: true, agent };
  }

  const agentId = agent?.id;
  const accountLock = await lockIfSpent(db, account, ACCOUNT_POLICY, now);
  if (accountLock) return lockedUntil(accountLock, { agentId, lockout: "account" });
  const addressLock = await lockIfSpent(db, address, ADDRESS_POLICY, now);
  if (addressLock) return lockedUntil(addressLock, { agentId, lockout: "address" });
  return { ok: false, reason: "invalid", ...(agentId ? { agentId } : {}) };
}

/** A password sign-in that opened its session (every step done): the account's failures and lockouts are forgotten. */
export async function completeSignIn(db: Database, email: string): Promise<void> {
  await clearFailures(db, accountKey(email));
}
