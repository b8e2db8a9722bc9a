import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "../connection";
import { listAuditEvents } from "./audit-events";
import { createAgentWithIdentity, recordIdentitySignIn, unlinkIdentities } from "./identities";
import { openTestSession, TEST_SESSION_LIMITS as limits } from "@/test/sessions";
import type { Agent } from "../schema";
import { setAgentPassword } from "./agents";
import { findSessionAgent } from "./sessions";

const IDP = { kind: "oidc" as const, issuer: "https://idp.example" };

describe.each(testDatabases)("identities on $name", ({ open }) => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());

  const session = async (agent: Agent, identityId: string | null, door: string) => {
    const id = await openTestSession(handle.db, agent, { door, identityId });
    return () => findSessionAgent(handle.db, { agentId: agent.id, sessionId: id, now: new Date(), limits });
  };

  it("gives a new role to the identity's open sessions at once, and to no other door's", async () => {
    const created = await createAgentWithIdentity(handle.db, {
      key: { ...IDP, subject: "ana" },
      email: "ana@example.com",
      name: "Ana",
      role: "agent",
    });
    const { identity } = created!;
    // The account has a password too (set by the operator).
    const { agent } = (await setAgentPassword(handle.db, "ana@example.com", "x"))!;
    const throughIdp = await session(agent, identity.id, "oidc:https://idp.example");
    const throughPassword = await session(agent, null, "password");
    const promoted = await recordIdentitySignIn(handle.db, {
      identityId: identity.id,
      role: "supervisor",
      now: new Date(),
    });
    expect(promoted?.roleChangedFrom).toBe("agent");
    expect(await throughIdp()).toMatchObject({ role: "supervisor", door: "oidc:https://idp.example" });
    expect(await throughPassword()).toMatchObject({ role: "agent", door: "password" });

    const events = await listAuditEvents(handle.db, { limit: 100 });
    expect(events.map(({ action, actor, door, details }) => ({ action, actor, door, details }))).toEqual([
      {
        action: "agent.created",
        actor: `agent:${agent.id}`,
        door: "oidc:https://idp.example",
        details: { email: "ana@example.com", identity: "oidc:https://idp.example", role: "agent" },
      },
      {
        action: "agent.role_changed",
        actor: `agent:${agent.id}`,
        door: "oidc:https://idp.example",
        details: { agentId: agent.id, door: "oidc:https://idp.example", from: "agent", to: "supervisor" },
      },
    ]);

    const { unlinked, endedSessions } = await unlinkIdentities(handle.db, {
      agentId: agent.id,
      kind: "oidc",
      now: new Date(),
      actor: { actor: "cli:test", door: "cli" },
    });
    expect(unlinked).toHaveLength(1);
    expect(endedSessions).toMatchObject([{ reason: "identity_unlinked", door: "oidc:https://idp.example" }]);
    expect(await throughIdp()).toBeUndefined();
    expect(await throughPassword()).toBeDefined();
  });

  it("creates nothing when the e-mail is another account's", async () => {
    const key = { ...IDP, subject: "other-ana" };
    expect(
      await createAgentWithIdentity(handle.db, {
        key,
        email: "ana@example.com",
        name: "Outra",
        role: "agent",
      }),
    ).toBeUndefined();
    const events = await listAuditEvents(handle.db, { limit: 100 });
    expect(events.filter((event) => event.action === "agent.created")).toHaveLength(1);
  });
});
