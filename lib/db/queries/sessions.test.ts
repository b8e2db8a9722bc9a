import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "../connection";
import { openTestSession } from "@/test/sessions";
import { findAgentById, insertAgent, setAgentDisabled, setAgentPassword } from "./agents";
import { linkIdentity } from "./identities";
import { requestBudgets } from "../schema";
import { eq } from "drizzle-orm";
import {
  endAgentSessions,
  endSession,
  explainDeadSession,
  findSessionAgent,
  findSessionAgentSpending,
  listOpenSessions,
  openSession,
  type SessionLimits,
} from "./sessions";

const MINUTE = 60_000;
const limits: SessionLimits = { idleMs: 60 * MINUTE, absoluteMs: 12 * 60 * MINUTE };

describe.each(testDatabases)("sessions on $name", ({ open }) => {
  let handle: DatabaseHandle;
  const start = new Date("2026-11-23T08:00:00Z");
  const at = (minutes: number) => new Date(start.getTime() + minutes * MINUTE);
  let agentCount = 0;

  async function signedIn(minutes = 0) {
    const email = `agent${agentCount++}@example.com`;
    const agent = await insertAgent(handle.db, { email, name: "Ana", role: "agent", passwordHash: "x" });
    const sessionId = await openTestSession(handle.db, agent, {
      userAgent: "Mozilla/5.0 " + "x".repeat(400),
      now: at(minutes),
    });
    const check = (minutes: number, claims = { agentId: agent.id, sessionId }) =>
      findSessionAgent(handle.db, { ...claims, now: at(minutes), limits });
    return { agent, email, sessionId, check };
  }

  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  it("finds the agent of a live session, and only with the session's own agent", async () => {
    const { agent, check, sessionId } = await signedIn();
    expect(await check(1)).toEqual({
      id: agent.id,
      name: "Ana",
      email: agent.email,
      role: "agent",
      door: "password",
    });
    const other = await signedIn();
    expect(await check(1, { agentId: other.agent.id, sessionId })).toBeUndefined();
  });

  it("checks the session and spends from its agent's budget in one statement; a dead session spends nothing", async () => {
    const { agent, sessionId } = await signedIn();
    const policy = { limit: 3, windowMs: MINUTE };
    const budgetKey = `sales:${agent.id}`;
    const spend = (minutes: number, claims = { agentId: agent.id, sessionId }) =>
      findSessionAgentSpending(handle.db, { ...claims, now: at(minutes), limits, budgetKey, policy });
    const used = async () =>
      (await handle.db.select().from(requestBudgets).where(eq(requestBudgets.key, budgetKey)))[0]?.used;

    // Sent at once: exactly the limit gets through, every one of them sees the live agent.
    const spent = await Promise.all(Array.from({ length: 5 }, () => spend(1)));
    expect(spent.map((each) => each?.agent.id)).toEqual(Array(5).fill(agent.id));
    expect(spent.filter((each) => each?.spent.allowed)).toHaveLength(3);
    for (const each of spent) expect(each?.spent.renewsAt).toEqual(at(2));
    expect(await used()).toBe(5);
    // A new window a minute after the first request.
    expect((await spend(2.5))?.spent).toEqual({ allowed: true, renewsAt: at(3.5) });

    // Another agent's claims, an idle session, an ended one: no agent, and the budget is untouched.
    const other = await signedIn();
    expect(await spend(2.6, { agentId: other.agent.id, sessionId })).toBeUndefined();
    expect(await spend(200)).toBeUndefined();
    await endSession(handle.db, sessionId, at(3), "signed_out");
    expect(await spend(3.1)).toBeUndefined();
    expect(await used()).toBe(1);
  });

  it("ends a session left idle past the limit; one in use lives on", async () => {
    const idle = await signedIn();
    expect(await idle.check(61)).toBeUndefined();
    // Refusing it did not mark it as seen: it stays dead.
    expect(await idle.check(61.5)).toBeUndefined();
    // Explained once, as ended when its idle time ran out; after that it is an ended session like any other.
    const explain = () => explainDeadSession(handle.db, { sessionId: idle.sessionId, now: at(62), limits });
    expect(await explain()).toEqual({
      state: "ended_now",
      session: {
        id: idle.sessionId,
        agentId: idle.agent.id,
        door: "password",
        method: "password",
        reason: "idle",
        endedAt: at(60),
      },
    });
    expect(await explain()).toMatchObject({ state: "ended", reason: "idle" });

    const used = await signedIn();
    for (const minutes of [50, 100, 150, 200]) expect(await used.check(minutes)).toBeDefined();
    expect(await used.check(261)).toBeUndefined();
  });

  it("ends a session 12 hours after sign-in however much it is used", async () => {
    const { check, sessionId } = await signedIn();
    for (let minutes = 30; minutes < 12 * 60; minutes += 30) expect(await check(minutes)).toBeDefined();
    expect(await check(12 * 60 + 1)).toBeUndefined();
    expect(await check(12 * 60 + 2)).toBeUndefined();
    expect(await explainDeadSession(handle.db, { sessionId, now: at(12 * 60 + 2), limits })).toMatchObject({
      state: "ended_now",
      session: { reason: "absolute", endedAt: at(12 * 60) },
    });
  });

  it("ends one session at sign-out and every session on 'sign out everywhere'", async () => {
    const first = await signedIn();
    const portal = await linkIdentity(handle.db, {
      agentId: first.agent.id,
      key: { kind: "portal", issuer: "https://portal.example", subject: first.email },
      actor: { actor: "cli:test", door: "cli" },
    });
    const second = await openTestSession(handle.db, first.agent, {
      door: "portal:https://portal.example",
      identityId: portal!.identity.id,
      now: at(1),
    });
    expect(await endSession(handle.db, first.sessionId, at(2), "signed_out")).toMatchObject({
      id: first.sessionId,
      reason: "signed_out",
    });
    expect(await endSession(handle.db, first.sessionId, at(2), "signed_out")).toBeUndefined();
    expect(await first.check(3)).toBeUndefined();
    expect(await first.check(3, { agentId: first.agent.id, sessionId: second })).toBeDefined();
    expect(await listOpenSessions(handle.db, first.agent.id, at(3), limits)).toMatchObject([
      { id: second, method: "portal", userAgent: null },
    ]);
    expect(await endAgentSessions(handle.db, first.agent.id, at(4), "signed_out_elsewhere")).toMatchObject([
      { id: second, door: "portal:https://portal.example", reason: "signed_out_elsewhere" },
    ]);
    expect(await explainDeadSession(handle.db, { sessionId: second, now: at(5), limits })).toMatchObject({
      state: "ended",
      reason: "signed_out_elsewhere",
    });
    expect(await first.check(5, { agentId: first.agent.id, sessionId: second })).toBeUndefined();
  });

  it("ends every session of an agent who is disabled or gets a new password", async () => {
    const disabled = await signedIn();
    await setAgentDisabled(handle.db, disabled.email, true);
    await setAgentDisabled(handle.db, disabled.email, false);
    expect(await disabled.check(1)).toBeUndefined();

    const reset = await signedIn();
    await setAgentPassword(handle.db, reset.email, "new-hash");
    expect(await reset.check(1)).toBeUndefined();
  });

  it("ends a session whose door no longer gives what it gave, even one opened while that changed", async () => {
    // A password sign-in checked against the old password, whose session row lands after the new one was set.
    const { agent, email } = await signedIn();
    await setAgentPassword(handle.db, email, "newer-hash");
    const late = await openTestSession(handle.db, agent, { now: at(1) });
    const check = (sessionId: string) =>
      findSessionAgent(handle.db, { agentId: agent.id, sessionId, now: at(2), limits });
    expect(await check(late)).toBeUndefined();
    expect(await explainDeadSession(handle.db, { sessionId: late, now: at(2), limits })).toMatchObject({
      state: "ended_now",
      session: { reason: "password_changed" },
    });

    // A role the operator took away while a sign-in with the old one was under way.
    const current = (await findAgentById(handle.db, agent.id))!;
    const asSupervisor = await openTestSession(handle.db, current, { role: "supervisor", now: at(1) });
    expect(await check(asSupervisor)).toBeUndefined();
    expect(
      await explainDeadSession(handle.db, { sessionId: asSupervisor, now: at(2), limits }),
    ).toMatchObject({
      session: { reason: "role_changed" },
    });
    // The same, at the door's role now: live.
    expect(await check(await openTestSession(handle.db, current, { now: at(1) }))).toBeDefined();
  });

  it("keeps the user agent short and prunes sessions nobody can use any more", async () => {
    const { agent } = await signedIn();
    const [row] = await listOpenSessions(handle.db, agent.id, at(1), limits);
    expect(row!.userAgent).toHaveLength(255);
    const ended = await signedIn();
    await endSession(handle.db, ended.sessionId, at(1), "signed_out");
    // The next sign-in, a day later, prunes every row above, and tells which ran out of time unnoticed.
    const pruned = await openSession(handle.db, {
      agentId: agent.id,
      method: "password",
      door: "password",
      identityId: null,
      role: "agent",
      credential: null,
      userAgent: null,
      now: at(24 * 60),
      limits,
    });
    expect(pruned.expired.map((session) => session.id)).not.toContain(ended.sessionId);
    expect(pruned.expired.every((session) => ["idle", "absolute"].includes(session.reason))).toBe(true);
    expect(pruned.expired.length).toBeGreaterThan(0);
    const rows = await handle.db.query.sessions.findMany();
    expect(rows.every((session) => session.createdAt.getTime() >= at(23 * 60).getTime())).toBe(true);
  });
});
