import { afterEach, describe, expect, it, vi } from "vitest";
import { securityEvent, securityEventOnce } from ".";
import { emailTag, sessionTag } from "./line";

/** The lines written while `run` ran, parsed. */
async function linesOf(run: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const capture = (line: unknown) => {
    written.push(String(line));
    return true;
  };
  const out = vi.spyOn(process.stdout, "write").mockImplementation(capture);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(capture);
  try {
    await run();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return written.map((line) => JSON.parse(line) as Record<string, unknown>);
}

afterEach(() => vi.restoreAllMocks());

describe("security events", () => {
  it("carry every field, null where it does not apply, and a hashed session", async () => {
    const [line] = await linesOf(() =>
      securityEvent("auth.sign_in", {
        outcome: "success",
        door: "oidc:https://login.parceira.example",
        agentId: "0b5f6a52-3b0e-4c55-9d8c-5a1d2e3f4a5b",
        address: "203.0.113.7",
        sessionId: "6f1c2b34-0000-4000-8000-000000000001",
        details: { role: "agent" },
      }),
    );
    expect(line).toEqual({
      time: expect.any(String),
      level: "info",
      service: "app",
      event: "auth.sign_in",
      category: "security",
      outcome: "success",
      door: "oidc:https://login.parceira.example",
      agentId: "0b5f6a52-3b0e-4c55-9d8c-5a1d2e3f4a5b",
      address: "203.0.113.7",
      session: sessionTag("6f1c2b34-0000-4000-8000-000000000001"),
      emailHash: null,
      reason: null,
      role: "agent",
    });
    expect(JSON.stringify(line)).not.toContain("6f1c2b34-0000-4000-8000-000000000001");
  });

  it("name an unknown account's typed e-mail by a keyed hash that groups guesses, never by the address", async () => {
    const failed = (email: string, agentId: string | null = null) =>
      securityEvent("auth.sign_in", {
        outcome: "failure",
        door: "password",
        agentId,
        address: "203.0.113.7",
        emailTyped: email,
        reason: "invalid",
      });
    const lines = await linesOf(async () => {
      await failed("Ana@Parceira.com.br");
      await failed(" ana@parceira.com.br ");
      await failed("bia@parceira.com.br");
      await failed("ana@parceira.com.br", "0b5f6a52-3b0e-4c55-9d8c-5a1d2e3f4a5b");
    });
    expect(lines.map((line) => line.level)).toEqual(["warn", "warn", "warn", "warn"]);
    const [first, second, other, known] = lines.map((line) => line.emailHash);
    expect(first).toMatch(/^[0-9a-f]{16}$/);
    expect(second).toBe(first);
    expect(other).not.toBe(first);
    // A known account is named by its id; the e-mail adds nothing.
    expect(known).toBeNull();
    expect(JSON.stringify(lines)).not.toMatch(/parceira/i);
    // Keyed: without AUTH_SECRET the hash cannot be recomputed from a list of addresses.
    expect(emailTag("ana@parceira.com.br", "another-secret-of-enough-length-0123456")).not.toBe(first);
  });

  it("written once every few minutes when the same thing repeats", async () => {
    const fields = {
      outcome: "failure" as const,
      door: null,
      agentId: null,
      address: "198.51.100.1",
      reason: "x",
    };
    const start = Date.now();
    const lines = await linesOf(async () => {
      await securityEventOnce("replay:a", "access.refused", fields, start);
      await securityEventOnce("replay:a", "access.refused", fields, start + 60_000);
      await securityEventOnce("replay:b", "access.refused", fields, start + 60_000);
      await securityEventOnce("replay:a", "access.refused", fields, start + 11 * 60_000);
    });
    expect(lines).toHaveLength(3);
  });
});
