import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "@/lib/db/connection";
import { findAgentByEmail, insertAgent, setAgentDisabled, setAgentPassword } from "@/lib/db/queries/agents";
import { hashPassword } from "./password";
import { authenticateAgent } from "./sign-in";

const MINUTE = 60_000;

describe.each(testDatabases)("sign-in on $name", ({ open }) => {
  let handle: DatabaseHandle;
  const start = new Date("2026-11-22T12:00:00Z");
  const at = (minutes: number) => new Date(start.getTime() + minutes * MINUTE);
  let address = 0;
  // Every test signs in from its own address so the per-address counter stays out of its way.
  const attempt = (email: string, password: string, now: Date, from = `10.0.0.${address}`) =>
    authenticateAgent(handle.db, { email, password, address: from }, now);

  beforeAll(async () => {
    handle = await open();
    const passwordHash = await hashPassword("correct horse");
    for (const email of ["ana@example.com", "bia@example.com", "caio@example.com", "duda@example.com"]) {
      await insertAgent(handle.db, { email, name: email.split("@")[0]!, role: "agent", passwordHash });
    }
  });
  afterAll(() => handle.close());

  it("applies the migrations on an empty database", async () => {
    const { rows } = (await handle.db.execute(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    )) as unknown as { rows: { table_name: string }[] };
    expect(rows.map((row) => row.table_name)).toEqual([
      "agents",
      "embed_token_uses",
      "sales",
      "sign_in_throttle",
    ]);
  });

  it("stores argon2id hashes with OWASP's parameters", async () => {
    const agent = await findAgentByEmail(handle.db, "ANA@example.com");
    expect(agent?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it("signs in with the right password, whatever the e-mail's letter case", async () => {
    address++;
    const result = await attempt(" Ana@Example.COM ", "correct horse", at(0));
    expect(result.ok && result.agent.email).toBe("ana@example.com");
  });

  it("gives the same answer for a wrong password, an unknown e-mail and a disabled account", async () => {
    address++;
    await setAgentDisabled(handle.db, "duda@example.com", true);
    expect(await attempt("ana@example.com", "wrong", at(0))).toEqual({ ok: false, reason: "invalid" });
    expect(await attempt("nobody@example.com", "correct horse", at(0))).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect(await attempt("duda@example.com", "correct horse", at(0))).toEqual({
      ok: false,
      reason: "invalid",
    });
  });

  it("locks an account after 5 failures in 15 minutes, even for the right password, for a growing time", async () => {
    address++;
    for (let failure = 1; failure <= 4; failure++) {
      expect(await attempt("bia@example.com", "wrong", at(failure))).toEqual({
        ok: false,
        reason: "invalid",
      });
    }
    expect(await attempt("bia@example.com", "wrong", at(5))).toEqual({
      ok: false,
      reason: "locked",
      retryAfterSeconds: 300,
    });
    expect(await attempt("bia@example.com", "correct horse", at(6))).toEqual({
      ok: false,
      reason: "locked",
      retryAfterSeconds: 240,
    });
    // A new address does not unlock the account.
    expect(await attempt("bia@example.com", "correct horse", at(6), "10.9.9.9")).toMatchObject({
      reason: "locked",
    });

    // After the lock, five more failures lock it for twice as long.
    for (let failure = 1; failure <= 4; failure++) {
      expect(await attempt("bia@example.com", "wrong", at(10 + failure))).toMatchObject({
        reason: "invalid",
      });
    }
    expect(await attempt("bia@example.com", "wrong", at(15))).toMatchObject({ retryAfterSeconds: 600 });
    expect((await attempt("bia@example.com", "correct horse", at(26))).ok).toBe(true);
  });

  it("forgets failures older than the 15-minute window, and resets the count on success", async () => {
    address++;
    for (let failure = 0; failure < 4; failure++) await attempt("caio@example.com", "wrong", at(failure));
    expect(await attempt("caio@example.com", "wrong", at(20))).toMatchObject({ reason: "invalid" });
    for (let failure = 0; failure < 3; failure++)
      await attempt("caio@example.com", "wrong", at(21 + failure));
    expect((await attempt("caio@example.com", "correct horse", at(25))).ok).toBe(true);
    for (let failure = 0; failure < 4; failure++) {
      expect(await attempt("caio@example.com", "wrong", at(26 + failure))).toMatchObject({
        reason: "invalid",
      });
    }
  });

  it("locks an address after 50 failures across accounts", async () => {
    const from = "10.5.5.5";
    for (let failure = 0; failure < 49; failure++) {
      const result = await attempt(`spray${failure}@example.com`, "guess", at(30), from);
      expect(result).toMatchObject({ reason: "invalid" });
    }
    expect(await attempt("spray49@example.com", "guess", at(30), from)).toMatchObject({ reason: "locked" });
    expect(await attempt("ana@example.com", "correct horse", at(31), from)).toMatchObject({
      reason: "locked",
    });
  });

  it("ends sessions issued before a password reset or a disable", async () => {
    const before = await findAgentByEmail(handle.db, "ana@example.com");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const after = await setAgentPassword(handle.db, "ana@example.com", await hashPassword("new password 1"));
    expect(after!.sessionsValidFrom.getTime()).toBeGreaterThan(before!.sessionsValidFrom.getTime());
  });
});
