import "server-only";
import type { Database } from "@/lib/db/connection";
import { findAgentByEmail, normalizeEmail } from "@/lib/db/queries/agents";
import {
  clearFailures,
  lockRemainingMs,
  recordFailure,
  type ThrottlePolicy,
} from "@/lib/db/queries/sign-in-throttle";
import type { Agent } from "@/lib/db/schema";
import { QueueFullError } from "@/lib/bounded-queue";
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

export type SignInResult =
  | { ok: true; agent: Agent }
  | { ok: false; reason: "invalid" }
  /** Too many password checks under way: nothing was checked or counted, the person may try again at once. */
  | { ok: false; reason: "busy" }
  | { ok: false; reason: "locked"; retryAfterSeconds: number };

export const accountKey = (email: string) => `account:${normalizeEmail(email)}`;
export const addressKey = (address: string) => `address:${address}`;

export async function authenticateAgent(
  db: Database,
  credentials: { email: string; password: string; address: string },
  now: Date = new Date(),
): Promise<SignInResult> {
  const account = accountKey(credentials.email);
  const address = addressKey(credentials.address);
  const keys = [account, address];
  const locked = async (): Promise<SignInResult | undefined> => {
    const remainingMs = await lockRemainingMs(db, keys, now);
    return remainingMs > 0
      ? { ok: false, reason: "locked", retryAfterSeconds: Math.ceil(remainingMs / 1000) }
      : undefined;
  };

  const alreadyLocked = await locked();
  if (alreadyLocked) return alreadyLocked;

  const agent = await findAgentByEmail(db, credentials.email);
  let passwordMatches: boolean;
  try {
    passwordMatches = await verifyPassword(agent?.passwordHash ?? null, credentials.password);
  } catch (error) {
    if (error instanceof QueueFullError) return { ok: false, reason: "busy" };
    throw error;
  }
  if (agent && passwordMatches && !agent.disabledAt) {
    await clearFailures(db, account);
    return { ok: true, agent };
  }

  await recordFailure(db, account, ACCOUNT_POLICY, now);
  await recordFailure(db, address, ADDRESS_POLICY, now);
  return (await locked()) ?? { ok: false, reason: "invalid" };
}
