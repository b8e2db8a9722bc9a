import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "@/test/databases";
import type { DatabaseHandle } from "@/lib/db/connection";
import { findAgentByEmail, insertAgent, setAgentDisabled } from "@/lib/db/queries/agents";
import { hashPassword } from "./password";
import { authenticateAgent, completeSignIn, SIGN_IN_ADMISSION } from "./sign-in";

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
      "agent_identities",
      "agents",
      "api_keys",
      "audit_events",
      "embed_token_uses",
      "integrations",
      "job_leases",
      "recovery_codes",
      "request_budgets",
      "sale_counts_zone",
      "sale_day_counts",
      "sale_evidence",
      "sales",
      "second_factors",
      "sessions",
      "sign_in_challenges",
      "sign_in_throttle",
      "webhook_attempts",
      "webhook_deliveries",
      "webhook_endpoints",
      "webhook_events",
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
    const ana = await findAgentByEmail(handle.db, "ana@example.com");
    const duda = await findAgentByEmail(handle.db, "duda@example.com");
    // The reason is the same; the account it was about goes only to the security log.
    expect(await attempt("ana@example.com", "wrong", at(0))).toEqual({
      ok: false,
      reason: "invalid",
      agentId: ana!.id,
    });
    expect(await attempt("nobody@example.com", "correct horse", at(0))).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect(await attempt("duda@example.com", "correct horse", at(0))).toEqual({
      ok: false,
      reason: "invalid",
      agentId: duda!.id,
    });
  });

  it("locks an account after 5 failures in 15 minutes, even for the right password, for a growing time", async () => {
    address++;
    for (let failure = 1; failure <= 4; failure++) {
      expect(await attempt("bia@example.com", "wrong", at(failure))).toMatchObject({
        ok: false,
        reason: "invalid",
      });
    }
    expect(await attempt("bia@example.com", "wrong", at(5))).toEqual({
      ok: false,
      reason: "locked",
      retryAfterSeconds: 300,
      agentId: (await findAgentByEmail(handle.db, "bia@example.com"))!.id,
      lockout: "account",
    });
    expect(await attempt("bia@example.com", "correct horse", at(6))).toEqual({
      ok: false,
      reason: "locked",
      retryAfterSeconds: 240,
      agentId: (await findAgentByEmail(handle.db, "bia@example.com"))!.id,
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

  it("forgets failures older than the 15-minute window, and resets the count when the sign-in completes", async () => {
    address++;
    for (let failure = 0; failure < 4; failure++) await attempt("caio@example.com", "wrong", at(failure));
    expect(await attempt("caio@example.com", "wrong", at(20))).toMatchObject({ reason: "invalid" });
    for (let failure = 0; failure < 3; failure++)
      await attempt("caio@example.com", "wrong", at(21 + failure));
    expect((await attempt("caio@example.com", "correct horse", at(25))).ok).toBe(true);
    await completeSignIn(handle.db, "caio@example.com");
    for (let failure = 0; failure < 4; failure++) {
      expect(await attempt("caio@example.com", "wrong", at(26 + failure))).toMatchObject({
        reason: "invalid",
      });
    }
  });

  it("keeps the count after a right password until the sign-in completes (its second factor still to come)", async () => {
    address++;
    const email = "fabi@example.com";
    await insertAgent(handle.db, {
      email,
      name: "Eva",
      role: "agent",
      passwordHash: await hashPassword("correct horse"),
    });
    for (let failure = 0; failure < 3; failure++) await attempt(email, "wrong", at(40 + failure));
    // The right password, then wrong codes (counted on the same key by lib/auth/second-factor/factors.ts) and
    // the right password again: the failures before it still count.
    expect((await attempt(email, "correct horse", at(43))).ok).toBe(true);
    expect(await attempt(email, "wrong", at(44))).toMatchObject({ reason: "invalid" });
    expect((await attempt(email, "correct horse", at(44))).ok).toBe(true);
    expect(await attempt(email, "wrong", at(45))).toMatchObject({ reason: "locked" });
  });

  it("locks an address after 50 failures across accounts", async () => {
    const from = "10.5.5.5";
    for (let failure = 0; failure < 49; failure++) {
      const result = await attempt(`spray${failure}@example.com`, "guess", at(30), from);
      expect(result).toMatchObject({ reason: "invalid" });
    }
    expect(await attempt("spray49@example.com", "guess", at(30), from)).toMatchObject({
      reason: "locked",
      lockout: "address",
    });
    expect(await attempt("ana@example.com", "correct horse", at(31), from)).toMatchObject({
      reason: "locked",
    });
  });

  it("checks at most five of twenty wrong passwords sent at once, and the account is then locked", async () => {
    address++;
    await insertAgent(handle.db, {
      email: "eva@example.com",
      name: "eva",
      role: "agent",
      passwordHash: await hashPassword("correct horse"),
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => attempt("eva@example.com", "wrong", at(40))),
    );
    const checked = results.filter(
      (result) => !result.ok && result.reason !== "locked" && result.reason !== "busy",
    );
    const busy = results.filter((result) => !result.ok && result.reason === "busy");
    expect(checked.length + busy.length).toBeLessThanOrEqual(5);
    expect(
      results.filter((result) => !result.ok && result.reason === "locked").length,
    ).toBeGreaterThanOrEqual(15);
    expect(await attempt("eva@example.com", "correct horse", at(41))).toMatchObject({ reason: "locked" });
  });

  it("lets four sign-ins at a time reach the database, 32 wait, and tells the rest it is busy at once", async () => {
    address++;
    const { running, waiting } = SIGN_IN_ADMISSION;
    const turnedAway = 10;
    // Different e-mails from one address: no account locks, and fewer than the address's 50 failures.
    const results = await Promise.all(
      Array.from({ length: running + waiting + turnedAway }, (_, index) =>
        attempt(`flood${index}@example.com`, "wrong", at(50)),
      ),
    );
    expect(results.slice(-turnedAway)).toEqual(Array(turnedAway).fill({ ok: false, reason: "busy" }));
    expect(results.slice(0, -turnedAway).every((result) => !result.ok && result.reason === "invalid")).toBe(
      true,
    );
    // Turned away before counting: the address has spent 36 of its 50 failures, not 46, so 13 more are still
    // plain failures and the right password then gets in.
    for (let index = 0; index < 13; index++) {
      expect(await attempt(`more${index}@example.com`, "wrong", at(51))).toMatchObject({ reason: "invalid" });
    }
    expect((await attempt("ana@example.com", "correct horse", at(52))).ok).toBe(true);
  });

  it("forgets a key a day after its last attempt and lock", async () => {
    address++;
    await attempt("nobody-at-all@example.com", "wrong", at(0));
    const keys = async () =>
      (await handle.db.query.signInThrottle.findMany())
        .map((row) => row.key)
        .filter((key) => key.includes("nobody-at-all"));
    expect(await keys()).toHaveLength(1);
    await attempt("someone-else@example.com", "wrong", at(25 * 60));
    expect(await keys()).toEqual([]);
  });
});
