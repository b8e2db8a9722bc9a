import "server-only";
import { and, asc, desc, eq, gt, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "../connection";
import { rowsOf } from "../rows";
import { recoveryCodes, secondFactors, type SecondFactor, type SecondFactorKind } from "../schema";
import { endAgentSessions, type EndedSession } from "./sessions";
import { endAgentChallenges } from "./sign-in-challenges";

/** An enrolment not finished in this long (the QR code shown, the key never touched) is forgotten. */
export const ENROLMENT_TTL_MS = 15 * 60_000;

const confirmed = (agentId: string) =>
  and(eq(secondFactors.agentId, agentId), isNotNull(secondFactors.confirmedAt));

/** The account's working factors, oldest first. */
export function listFactors(db: Database, agentId: string): Promise<SecondFactor[]> {
  return db.select().from(secondFactors).where(confirmed(agentId)).orderBy(asc(secondFactors.createdAt));
}

/** How many factors of each kind the account has, and how many recovery codes are left. */
export async function factorSummary(
  db: Database,
  agentId: string,
): Promise<{ totp: number; webauthn: number; recoveryCodes: number }> {
  type Counts = { totp: number; webauthn: number; recovery: number };
  const [row] = rowsOf<Counts>(
    await db.execute(sql`
      select
        (select count(*)::int from ${secondFactors}
          where agent_id = ${agentId} and confirmed_at is not null and kind = 'totp') as totp,
        (select count(*)::int from ${secondFactors}
          where agent_id = ${agentId} and confirmed_at is not null and kind = 'webauthn') as webauthn,
        (select count(*)::int from ${recoveryCodes} where agent_id = ${agentId} and used_at is null) as recovery
    `),
  );
  return { totp: row?.totp ?? 0, webauthn: row?.webauthn ?? 0, recoveryCodes: row?.recovery ?? 0 };
}

/** A new enrolment of `kind`: the agent's earlier unfinished ones of that kind go. */
export async function startEnrolment(
  db: Database,
  input: {
    agentId: string;
    kind: SecondFactorKind;
    label: string;
    /** `sign-in:<challenge id>` or `session:<session id>`: who may see it again and finish it. */
    startedBy: string;
    totpSecret?: string;
    challenge?: string;
  },
): Promise<SecondFactor> {
  return db.transaction(async (tx) => {
    await tx
      .delete(secondFactors)
      .where(
        and(
          eq(secondFactors.agentId, input.agentId),
          eq(secondFactors.kind, input.kind),
          isNull(secondFactors.confirmedAt),
        ),
      );
    const [row] = await tx
      .insert(secondFactors)
      .values({
        agentId: input.agentId,
        kind: input.kind,
        label: input.label,
        totpSecret: input.totpSecret ?? null,
        challenge: input.challenge ?? null,
        startedBy: input.startedBy,
      })
      .returning();
    return row!;
  });
}

/** The agent's enrolment of `kind` under way that `startedBy` started, if it has not expired. */
export async function pendingEnrolment(
  db: Database,
  agentId: string,
  kind: SecondFactorKind,
  now: Date,
  startedBy: string,
): Promise<SecondFactor | undefined> {
  const [row] = await db
    .select()
    .from(secondFactors)
    .where(
      and(
        eq(secondFactors.agentId, agentId),
        eq(secondFactors.kind, kind),
        eq(secondFactors.startedBy, startedBy),
        isNull(secondFactors.confirmedAt),
        gt(secondFactors.createdAt, new Date(now.getTime() - ENROLMENT_TTL_MS)),
      ),
    )
    .orderBy(desc(secondFactors.createdAt))
    .limit(1);
  return row;
}

/** Finishes an enrolment: the factor works from now on. Undefined when it was finished or replaced meanwhile. */
export async function confirmEnrolment(
  db: Database,
  factorId: string,
  now: Date,
  finish: Partial<
    Pick<SecondFactor, "totpLastStep" | "credentialId" | "publicKey" | "signCount" | "transports" | "label">
  > = {},
): Promise<SecondFactor | undefined> {
  const [row] = await db
    .update(secondFactors)
    .set({ ...finish, challenge: null, startedBy: null, confirmedAt: now, lastUsedAt: now })
    .where(and(eq(secondFactors.id, factorId), isNull(secondFactors.confirmedAt)))
    .returning();
  return row;
}

/**
 * Takes a TOTP code's time step: true when no code of that step or a later one was accepted before. One statement,
 * so the same code sent twice at once is accepted once.
 */
export async function takeTotpStep(
  db: Database,
  factorId: string,
  step: number,
  now: Date,
): Promise<boolean> {
  const taken = await db
    .update(secondFactors)
    .set({ totpLastStep: step, lastUsedAt: now })
    .where(
      and(
        eq(secondFactors.id, factorId),
        isNotNull(secondFactors.confirmedAt),
        or(isNull(secondFactors.totpLastStep), lt(secondFactors.totpLastStep, step)),
      ),
    )
    .returning({ id: secondFactors.id });
  return taken.length === 1;
}

export async function findCredential(
  db: Database,
  agentId: string,
  credentialId: string,
): Promise<SecondFactor | undefined> {
  const [row] = await db
    .select()
    .from(secondFactors)
    .where(and(confirmed(agentId), eq(secondFactors.credentialId, credentialId)))
    .limit(1);
  return row;
}

/** A key's signature counter after a use; a counter that did not grow (a cloned key) is refused by the caller. */
export async function recordKeyUse(
  db: Database,
  factorId: string,
  signCount: number,
  now: Date,
): Promise<void> {
  // Only ever up: of two uses answered at once, the later counter stays.
  await db
    .update(secondFactors)
    .set({ signCount: sql`greatest(${secondFactors.signCount}, ${signCount})`, lastUsedAt: now })
    .where(eq(secondFactors.id, factorId));
}

/** Removes one of the agent's factors; undefined when it is not theirs (or gone). */
export async function removeFactor(
  db: Database,
  agentId: string,
  factorId: string,
): Promise<SecondFactor | undefined> {
  const [row] = await db
    .delete(secondFactors)
    .where(and(confirmed(agentId), eq(secondFactors.id, factorId)))
    .returning();
  return row;
}

/**
 * The operator's reset: every factor (finished or not) and recovery code goes, and every session ends. The next
 * password sign-in enrols again where the policy asks for a factor.
 */
export async function resetSecondFactors(
  db: Database,
  agentId: string,
  now: Date,
): Promise<{ factors: number; recoveryCodes: number; endedSessions: EndedSession[] }> {
  return db.transaction(async (tx) => {
    const factors = await tx
      .delete(secondFactors)
      .where(eq(secondFactors.agentId, agentId))
      .returning({ id: secondFactors.id, confirmedAt: secondFactors.confirmedAt });
    const codes = await tx
      .delete(recoveryCodes)
      .where(and(eq(recoveryCodes.agentId, agentId), isNull(recoveryCodes.usedAt)))
      .returning({ id: recoveryCodes.id });
    const endedSessions = await endAgentSessions(tx, agentId, now, "second_factor_reset");
    await endAgentChallenges(tx, agentId, now);
    return {
      factors: factors.filter((factor) => factor.confirmedAt).length,
      recoveryCodes: codes.length,
      endedSessions,
    };
  });
}

/** A new set of recovery codes (none: the account has no factor left): the earlier ones, used or not, stop working. */
export async function replaceRecoveryCodes(db: Database, agentId: string, hashes: string[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.agentId, agentId));
    if (hashes.length > 0) {
      await tx.insert(recoveryCodes).values(hashes.map((codeHash) => ({ agentId, codeHash })));
    }
  });
}

export function unusedRecoveryCodes(db: Database, agentId: string) {
  return db
    .select({ id: recoveryCodes.id, codeHash: recoveryCodes.codeHash })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.agentId, agentId), isNull(recoveryCodes.usedAt)));
}

/** Spends a recovery code: true the first time only, however many requests race for it. */
export async function spendRecoveryCode(db: Database, codeId: string, now: Date): Promise<boolean> {
  const spent = await db
    .update(recoveryCodes)
    .set({ usedAt: now })
    .where(and(eq(recoveryCodes.id, codeId), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return spent.length === 1;
}
