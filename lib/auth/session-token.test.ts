import { encode } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from "./cookie-names";
import { readSessionCookie, sessionCookieName } from "./session-token";

const SECRET = "a-test-secret-that-is-long-enough-0123456789";

function jar(entries: Record<string, string>) {
  return {
    get: (name: string) => (name in entries ? { value: entries[name]! } : undefined),
    has: (name: string) => name in entries,
  };
}

async function sessionToken(
  claims: Record<string, unknown>,
  options: { maxAge?: number; secret?: string } = {},
) {
  return encode({
    token: claims,
    secret: options.secret ?? SECRET,
    salt: SESSION_COOKIE,
    maxAge: options.maxAge ?? 3600,
  });
}

const read = (cookies: Record<string, string>, now?: number) =>
  readSessionCookie(jar(cookies), { cookieName: SESSION_COOKIE, secret: SECRET, now });

describe("sessionCookieName", () => {
  it("follows Auth.js: AUTH_URL's protocol, else X-Forwarded-Proto, else https; portals use the plain name", () => {
    expect(sessionCookieName({ embedded: false, authUrl: undefined, forwardedProto: "http" })).toBe(
      SESSION_COOKIE,
    );
    expect(sessionCookieName({ embedded: false, authUrl: undefined, forwardedProto: "https" })).toBe(
      SECURE_SESSION_COOKIE,
    );
    expect(sessionCookieName({ embedded: false, authUrl: undefined, forwardedProto: null })).toBe(
      SECURE_SESSION_COOKIE,
    );
    expect(
      sessionCookieName({ embedded: false, authUrl: "https://sales.example", forwardedProto: "http" }),
    ).toBe(SECURE_SESSION_COOKIE);
    expect(
      sessionCookieName({ embedded: false, authUrl: "http://localhost:3000", forwardedProto: "https" }),
    ).toBe(SESSION_COOKIE);
    expect(sessionCookieName({ embedded: true, authUrl: undefined, forwardedProto: "https" })).toBe(
      SESSION_COOKIE,
    );
  });
});

describe("readSessionCookie", () => {
  it("reads the agent and sign-in time from a cookie Auth.js encrypted", async () => {
    const token = await sessionToken({ sub: "agent-1", role: "agent", authTime: 1_700_000_000_000 });
    expect(await read({ [SESSION_COOKIE]: token })).toEqual({
      agentId: "agent-1",
      authTime: 1_700_000_000_000,
    });
  });

  it("reads a cookie split into chunks the way Auth.js splits long ones", async () => {
    const token = await sessionToken({ sub: "agent-chunked", authTime: 5 });
    const cut = Math.floor(token.length / 2);
    expect(
      await read({ [`${SESSION_COOKIE}.0`]: token.slice(0, cut), [`${SESSION_COOKIE}.1`]: token.slice(cut) }),
    ).toEqual({ agentId: "agent-chunked", authTime: 5 });
  });

  it("refuses no cookie, a tampered one, one made with another secret, and one without an agent", async () => {
    const token = await sessionToken({ sub: "agent-2", authTime: 1 });
    const tampered = token.slice(0, -3) + (token.endsWith("AAA") ? "BBB" : "AAA");
    expect(await read({})).toBeNull();
    expect(await read({ [SESSION_COOKIE]: tampered })).toBeNull();
    expect(
      await read({
        [SESSION_COOKIE]: await sessionToken({ sub: "x" }, { secret: "another-secret-0123456789abcdef" }),
      }),
    ).toBeNull();
    expect(await read({ [SESSION_COOKIE]: await sessionToken({ role: "agent" }) })).toBeNull();
    expect(await read({ [SECURE_SESSION_COOKIE]: token })).toBeNull();
  });

  it("refuses an expired cookie, also once its claims were kept from an earlier request", async () => {
    const token = await sessionToken({ sub: "agent-3", authTime: 1 }, { maxAge: 60 });
    expect(await read({ [SESSION_COOKIE]: token })).toEqual({ agentId: "agent-3", authTime: 1 });
    expect(await read({ [SESSION_COOKIE]: token }, Date.now() + 61_000)).toBeNull();
    const expired = await sessionToken({ sub: "agent-4", authTime: 1 }, { maxAge: -120 });
    expect(await read({ [SESSION_COOKIE]: expired })).toBeNull();
  });
});
