import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DatabaseHandle } from "@/lib/db/connection";
import { changeOwnPassword, insertAgent, setAgentPassword } from "@/lib/db/queries/agents";
import { factorSummary, resetSecondFactors } from "@/lib/db/queries/second-factors";
import { completeChallenge, findOpenChallenge, updateChallenge } from "@/lib/db/queries/sign-in-challenges";
import type { Agent } from "@/lib/db/schema";
import { testDatabases } from "@/test/databases";
import { accountKey } from "../sign-in";
import {
  checkCurrentPassword,
  confirmTotpEnrolment,
  issueRecoveryCodes,
  pendingTotp,
  startTotpEnrolment,
  verifyFactorProof,
} from "./factors";
import { beginSteps, newStepsToken, nextStep, stepsAfterPassword, stepsTokenHash } from "./steps";
import { totpCode } from "./totp";
import { hashPassword } from "../password";
import { signInChallenges, signInThrottle } from "@/lib/db/schema";
import { eq } from "drizzle-orm";

// The sealing key derives from AUTH_SECRET; the security log's lines go to the console (checked for content here).
vi.stubEnv("AUTH_SECRET", "factors-test-auth-secret-0123456789abcdef");
vi.stubEnv("PARTNER_API_BASE_URL", "");

const MINUTE = 60_000;
const STEP = 30_000;

describe.each(testDatabases)("second factors on $name", ({ open }) => {
  let handle: DatabaseHandle;
  let count = 0;
  const start = Date.parse("2026-11-28T12:00:00Z");

  async function agentWithTotp(): Promise<{ agent: Agent; secret: string; enrolledAt: number }> {
    const agent = await insertAgent(handle.db, {
      email: `totp-${count++}@example.com`,
      name: "Rita Moreira",
      role: "agent",
      passwordHash: await hashPassword("cavalo correto bateria grampo"),
    });
    const { secret } = await startTotpEnrolment(handle.db, agent, "session:test");
    const enrolledAt = Date.now();
    const confirmed = await confirmTotpEnrolment(
      handle.db,
      agent,
      totpCode(secret, enrolledAt),
      "App",
      "session:test",
      new Date(enrolledAt),
    );
    expect(confirmed.ok).toBe(true);
    return { agent, secret, enrolledAt };
  }

  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  it("accepts a code once: the enrolment's code, and the same code sent three times at once, are accepted a single time", async () => {
    const { agent, secret, enrolledAt } = await agentWithTotp();
    const used = totpCode(secret, enrolledAt);
    expect(
      await verifyFactorProof(handle.db, agent, { kind: "totp", code: used }, new Date(enrolledAt)),
    ).toMatchObject({
      ok: false,
      reason: "replayed",
    });
    const next = new Date(enrolledAt + STEP);
    const code = totpCode(secret, next.getTime());
    const results = await Promise.all(
      Array.from({ length: 3 }, () =>
        verifyFactorProof(
          handle.db,
          agent,
          { kind: "totp", code: ` ${code.slice(0, 3)} ${code.slice(3)} ` },
          next,
        ),
      ),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok && result.reason === "replayed")).toHaveLength(2);
    // A step before the last one accepted is refused too, even within the window.
    expect(
      await verifyFactorProof(
        handle.db,
        agent,
        { kind: "totp", code: totpCode(secret, enrolledAt - STEP) },
        next,
      ),
    ).toMatchObject({ ok: false });
  });

  it("refuses codes outside the ±1 step window and malformed ones", async () => {
    const { agent, secret, enrolledAt } = await agentWithTotp();
    const later = new Date(enrolledAt + 10 * STEP);
    expect(
      await verifyFactorProof(
        handle.db,
        agent,
        { kind: "totp", code: totpCode(secret, later.getTime() + 3 * STEP) },
        later,
      ),
    ).toMatchObject({ ok: false, reason: "invalid" });
    // Each counts as a failure (four here, under the lockout's five).
    for (const code of ["12345", "abcdef", "１２３４５６"]) {
      expect(await verifyFactorProof(handle.db, agent, { kind: "totp", code }, later)).toMatchObject({
        ok: false,
        reason: "invalid",
      });
    }
  });

  it("counts code failures toward the password's lockout: five lock the account, and the right code is then refused", async () => {
    const { agent, secret } = await agentWithTotp();
    const at = new Date(start + 100 * MINUTE);
    for (let failure = 1; failure <= 4; failure++) {
      expect(await verifyFactorProof(handle.db, agent, { kind: "totp", code: "000000" }, at)).toMatchObject({
        reason: "invalid",
      });
    }
    expect(await verifyFactorProof(handle.db, agent, { kind: "totp", code: "000000" }, at)).toMatchObject({
      reason: "locked",
      retryAfterSeconds: 300,
    });
    const [row] = await handle.db
      .select()
      .from(signInThrottle)
      .where(eq(signInThrottle.key, accountKey(agent.email)));
    expect(row?.lockedUntil?.getTime()).toBe(at.getTime() + 5 * MINUTE);
    expect(
      await verifyFactorProof(
        handle.db,
        agent,
        { kind: "totp", code: totpCode(secret, at.getTime()) },
        new Date(at.getTime() + MINUTE),
      ),
    ).toMatchObject({ ok: false, reason: "locked" });
  });

  it("spends a recovery code once, in any letter case and grouping, even when sent twice at once", async () => {
    const { agent } = await agentWithTotp();
    const codes = await issueRecoveryCodes(handle.db, agent.id);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
    const typed = codes[3]!.toLowerCase().replace("-", " ");
    const results = await Promise.all([
      verifyFactorProof(handle.db, agent, { kind: "recovery_code", code: typed }),
      verifyFactorProof(handle.db, agent, { kind: "recovery_code", code: typed }),
    ]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(
      await verifyFactorProof(handle.db, agent, { kind: "recovery_code", code: codes[3]! }),
    ).toMatchObject({ ok: false });
    expect((await factorSummary(handle.db, agent.id)).recoveryCodes).toBe(9);
    // New codes replace the old ones.
    await issueRecoveryCodes(handle.db, agent.id);
    expect(
      await verifyFactorProof(handle.db, agent, { kind: "recovery_code", code: codes[4]! }),
    ).toMatchObject({ ok: false });
  });

  it("asks for the current password under the same limit", async () => {
    const { agent } = await agentWithTotp();
    const at = new Date(start + 200 * MINUTE);
    expect(await checkCurrentPassword(handle.db, agent, "cavalo correto bateria grampo", at)).toEqual({
      ok: true,
    });
    for (let failure = 1; failure <= 4; failure++) {
      expect(await checkCurrentPassword(handle.db, agent, "errada", at)).toEqual({
        ok: false,
        retryAfterSeconds: null,
      });
    }
    expect(await checkCurrentPassword(handle.db, agent, "errada", at)).toEqual({
      ok: false,
      retryAfterSeconds: 300,
    });
    expect(await checkCurrentPassword(handle.db, agent, "cavalo correto bateria grampo", at)).toMatchObject({
      ok: false,
    });
  });

  it("sends a password sign-in through its steps in order, and completes it once, only when all are done", async () => {
    const { agent } = await agentWithTotp();
    const changing = { ...agent, passwordChangeRequired: true };
    const steps = await stepsAfterPassword(handle.db, changing, "off");
    expect(steps).toEqual({ verifyFactor: true, enrolFactor: false, changePassword: true });
    const token = newStepsToken();
    await beginSteps(handle.db, {
      ...steps!,
      token,
      agentId: agent.id,
      credential: "c1",
      returnTo: "/sales",
    });
    const hash = stepsTokenHash(token);
    let challenge = (await findOpenChallenge(handle.db, hash, new Date()))!;
    expect(nextStep(challenge)).toBe("verify");
    expect(await completeChallenge(handle.db, hash, new Date())).toBeUndefined();
    await updateChallenge(handle.db, challenge.id, { secondFactorAt: new Date() });
    challenge = (await findOpenChallenge(handle.db, hash, new Date()))!;
    expect(nextStep(challenge)).toBe("change_password");
    expect(await completeChallenge(handle.db, hash, new Date())).toBeUndefined();
    await updateChallenge(handle.db, challenge.id, { passwordChangedAt: new Date(), credential: "c2" });
    const completed = await Promise.all([
      completeChallenge(handle.db, hash, new Date()),
      completeChallenge(handle.db, hash, new Date()),
    ]);
    expect(completed.filter(Boolean)).toHaveLength(1);
    expect(completed.find(Boolean)).toMatchObject({ credential: "c2", returnTo: "/sales" });
    expect(await findOpenChallenge(handle.db, hash, new Date())).toBeUndefined();
  });

  it("enrols under the policy: required for everyone, supervisors for supervisors, off for nobody", async () => {
    const agent = await insertAgent(handle.db, {
      email: `policy-${count++}@example.com`,
      name: "Sem Fator",
      role: "agent",
      passwordHash: await hashPassword("cavalo correto bateria grampo"),
    });
    expect(await stepsAfterPassword(handle.db, agent, "off")).toBeNull();
    expect(await stepsAfterPassword(handle.db, agent, "supervisors")).toBeNull();
    expect(
      await stepsAfterPassword(handle.db, { ...agent, role: "supervisor" }, "supervisors"),
    ).toMatchObject({
      enrolFactor: true,
    });
    expect(await stepsAfterPassword(handle.db, agent, "required")).toMatchObject({
      enrolFactor: true,
      verifyFactor: false,
    });
  });

  it("an operator's reset removes every factor and code and ends the sessions", async () => {
    const { agent } = await agentWithTotp();
    await issueRecoveryCodes(handle.db, agent.id);
    const reset = await resetSecondFactors(handle.db, agent.id, new Date());
    expect(reset).toMatchObject({ factors: 1, recoveryCodes: 10 });
    expect(await factorSummary(handle.db, agent.id)).toEqual({ totp: 0, webauthn: 0, recoveryCodes: 0 });
    expect(await stepsAfterPassword(handle.db, agent, "required")).toMatchObject({
      enrolFactor: true,
      verifyFactor: false,
    });
  });

  it("ends sign-ins under way when the password changes or the factors are reset, but the one changing it", async () => {
    const { agent } = await agentWithTotp();
    const open = async () => {
      const token = newStepsToken();
      await beginSteps(handle.db, {
        verifyFactor: false,
        enrolFactor: true,
        changePassword: true,
        token,
        agentId: agent.id,
        credential: "c1",
        returnTo: "/",
      });
      return (await findOpenChallenge(handle.db, stepsTokenHash(token), new Date()))!;
    };
    const stillOpen = async (id: string) =>
      (await handle.db.select().from(signInChallenges).where(eq(signInChallenges.id, id)))[0]!.completedAt ===
      null;

    const [mine, theirs] = [await open(), await open()];
    const newHash = await hashPassword("outra frase bem comprida");
    // Checked against a hash that is no longer the account's: nothing changes.
    expect(
      await changeOwnPassword(handle.db, {
        agentId: agent.id,
        previousHash: "not-the-hash",
        passwordHash: newHash,
        keepSessionId: null,
        keepChallengeId: mine.id,
        credential: "c2",
        now: new Date(),
      }),
    ).toBeUndefined();
    expect(await stillOpen(theirs.id)).toBe(true);
    await changeOwnPassword(handle.db, {
      agentId: agent.id,
      previousHash: agent.passwordHash!,
      passwordHash: newHash,
      keepSessionId: null,
      keepChallengeId: mine.id,
      credential: "c2",
      now: new Date(),
    });
    expect(await stillOpen(mine.id)).toBe(true);
    expect(await stillOpen(theirs.id)).toBe(false);
    expect((await findOpenChallenge(handle.db, mine.tokenHash, new Date()))!).toMatchObject({
      credential: "c2",
    });

    const afterOperator = await open();
    await setAgentPassword(
      handle.db,
      agent.email,
      await hashPassword("a do operador, provisória"),
      new Date(),
      {
        changeRequired: true,
      },
    );
    expect(await stillOpen(afterOperator.id)).toBe(false);
    const afterReset = await open();
    await resetSecondFactors(handle.db, agent.id, new Date());
    expect(await stillOpen(afterReset.id)).toBe(false);
  });

  it("shows and finishes an enrolment only where it was started", async () => {
    const agent = await insertAgent(handle.db, {
      email: `starter-${count++}@example.com`,
      name: "Rita Moreira",
      role: "agent",
      passwordHash: await hashPassword("cavalo correto bateria grampo"),
    });
    const { secret } = await startTotpEnrolment(handle.db, agent, "sign-in:one");
    expect(await pendingTotp(handle.db, agent, "session:other")).toBeNull();
    expect((await pendingTotp(handle.db, agent, "sign-in:one"))?.secret).toBe(secret);
    const now = new Date();
    const code = totpCode(secret, now.getTime());
    expect(await confirmTotpEnrolment(handle.db, agent, code, "App", "session:other", now)).toEqual({
      ok: false,
      reason: "expired",
    });
    expect(await confirmTotpEnrolment(handle.db, agent, code, "App", "sign-in:one", now)).toMatchObject({
      ok: true,
    });
  });
});
