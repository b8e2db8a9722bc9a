import "server-only";
import { and, eq, gt, isNotNull, isNull, lt, ne, or, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { rowsOf } from "../rows";
import { signInChallenges, type SignInChallenge } from "../schema";

export type NewSignInChallenge = Pick<
  SignInChallenge,
  | "tokenHash"
  | "agentId"
  | "credential"
  | "verifyFactor"
  | "enrolFactor"
  | "changePassword"
  | "returnTo"
  | "expiresAt"
>;

export async function createChallenge(db: Database, input: NewSignInChallenge): Promise<SignInChallenge> {
  const [row] = await db.insert(signInChallenges).values(input).returning();
  return row!;
}

/** The sign-in under way that the token names, while it is open (not completed, not expired). */
export async function findOpenChallenge(
  db: Database,
  tokenHash: string,
  now: Date,
): Promise<SignInChallenge | undefined> {
  const [row] = await db
    .select()
    .from(signInChallenges)
    .where(
      and(
        eq(signInChallenges.tokenHash, tokenHash),
        isNull(signInChallenges.completedAt),
        gt(signInChallenges.expiresAt, now),
      ),
    )
    .limit(1);
  return row;
}

export async function updateChallenge(
  db: Database,
  id: string,
  change: Partial<
    Pick<SignInChallenge, "secondFactorAt" | "passwordChangedAt" | "credential" | "webauthnChallenge">
  >,
): Promise<void> {
  await db.update(signInChallenges).set(change).where(eq(signInChallenges.id, id));
}

/**
 * Completes the sign-in once, when every step is done and it has not expired: the row, or undefined (already
 * completed, by a second tab or a replayed request; expired; steps left).
 */
export async function completeChallenge(
  db: Database,
  tokenHash: string,
  now: Date,
): Promise<SignInChallenge | undefined> {
  const c = signInChallenges;
  const [row] = await db
    .update(c)
    .set({ completedAt: now })
    .where(
      and(
        eq(c.tokenHash, tokenHash),
        isNull(c.completedAt),
        gt(c.expiresAt, now),
        or(and(sql`not ${c.verifyFactor}`, sql`not ${c.enrolFactor}`), isNotNull(c.secondFactorAt)),
        or(sql`not ${c.changePassword}`, isNotNull(c.passwordChangedAt)),
      ),
    )
    .returning();
  return row;
}

/**
 * Ends an agent's sign-ins under way but `except` (the one asking): whatever they had left to do (a factor, a new
 * password, an enrolment) was decided for a password or factors that changed since.
 */
export async function endAgentChallenges(
  db: Database,
  agentId: string,
  now: Date,
  { except }: { except?: string } = {},
): Promise<void> {
  await db
    .update(signInChallenges)
    .set({ completedAt: now })
    .where(
      and(
        eq(signInChallenges.agentId, agentId),
        isNull(signInChallenges.completedAt),
        except ? ne(signInChallenges.id, except) : undefined,
      ),
    );
}

/**
 * Takes the WebAuthn challenge of a sign-in's factor step, once: the value it had, and none left behind, in one
 * statement (two answers sent at once cannot both be checked against it).
 */
export async function takeWebauthnChallenge(db: Database, id: string): Promise<string | null> {
  const taken = rowsOf<{ challenge: string }>(
    await db.execute(sql`
      update ${signInChallenges} as c set webauthn_challenge = null
      from (select id, webauthn_challenge from ${signInChallenges} where id = ${id} for update) as before
      where c.id = before.id and before.webauthn_challenge is not null
      returning before.webauthn_challenge as challenge
    `),
  );
  return taken[0]?.challenge ?? null;
}

/** Ends one sign-in under way (given up: "Cancelar"). */
export async function endChallenge(db: Database, id: string, now: Date): Promise<void> {
  await db
    .update(signInChallenges)
    .set({ completedAt: now })
    .where(and(eq(signInChallenges.id, id), isNull(signInChallenges.completedAt)));
}

/** Rows a day past their expiry. */
export async function pruneChallenges(db: Database, now: Date): Promise<void> {
  await db
    .delete(signInChallenges)
    .where(lt(signInChallenges.expiresAt, new Date(now.getTime() - 86_400_000)));
}
