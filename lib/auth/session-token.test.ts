import { encode } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from "./cookie-names";
import { readSessionCookie, sessionCookieName } from "./session-token";

const SECRET = "a-test-secret-that-is-long-enough-0123456789";

async function sessionToken(
  claims: Record<string, unknown>,
  options: { maxAge?: number; secret?: string; salt?: string } = {},
) {
  return encode({
    token: claims,
    secret: options.secret ?? SECRET,
    salt: options.salt ?? SESSION_COOKIE,
    maxAge: options.maxAge ?? 3600,
  });
}

const header = (cookies: [string, string][]) => cookies.map(([name, value]) => `${name}=${value}`).join("; ");
const read = (cookies: [string, string][], options: { now?: number; cookieName?: string } = {}) =>
  readSessionCookie(header(cookies), {
    cookieName: options.cookieName ?? SESSION_COOKIE,
    secret: SECRET,
    now: options.now,
  });

describe("sessionCookieName", () => {
  const name = (authUrl: string | undefined, forwardedProto: string | null, embedded = false) =>
    sessionCookieName({ embedded, authUrl, forwardedProto });

  it("follows Auth.js: AUTH_URL's protocol, else X-Forwarded-Proto, else https; portals use the plain name", () => {
    expect(name(undefined, "http")).toBe(SESSION_COOKIE);
    expect(name(undefined, "https")).toBe(SECURE_SESSION_COOKIE);
    expect(name(undefined, "HTTPS")).toBe(SECURE_SESSION_COOKIE);
    expect(name(undefined, "https:")).toBe(SECURE_SESSION_COOKIE);
    expect(name(undefined, null)).toBe(SECURE_SESSION_COOKIE);
    expect(name("https://sales.example", "http")).toBe(SECURE_SESSION_COOKIE);
    expect(name("http://localhost:3000", "https")).toBe(SESSION_COOKIE);
    expect(name(undefined, "https", true)).toBe(SESSION_COOKIE);
  });

  it("gives no name where Auth.js could not build its URL", () => {
    expect(name(undefined, "not a protocol")).toBeNull();
  });
});

describe("readSessionCookie", () => {
  it("reads the agent and sign-in time from a cookie Auth.js encrypted", async () => {
    const token = await sessionToken({ sub: "agent-1", role: "agent", authTime: 1_700_000_000_000 });
    expect(await read([[SESSION_COOKIE, token]])).toEqual({
      agentId: "agent-1",
      authTime: 1_700_000_000_000,
    });
  });

  it("reads a cookie split into chunks the way Auth.js splits long ones", async () => {
    const token = await sessionToken({ sub: "agent-chunked", authTime: 5 });
    const cut = Math.floor(token.length / 2);
    expect(
      await read([
        [`${SESSION_COOKIE}.0`, token.slice(0, cut)],
        [`${SESSION_COOKIE}.1`, token.slice(cut)],
      ]),
    ).toEqual({ agentId: "agent-chunked", authTime: 5 });
  });

  it("takes the first of two cookies with the same name, as Auth.js's parser does", async () => {
    const first = await sessionToken({ sub: "agent-first", authTime: 1 });
    const second = await sessionToken({ sub: "agent-second", authTime: 1 });
    expect(
      await read([
        [SESSION_COOKIE, first],
        [SESSION_COOKIE, second],
      ]),
    ).toMatchObject({ agentId: "agent-first" });
  });

  it("refuses no cookie, a tampered one, one made with another secret, and one without an agent", async () => {
    const token = await sessionToken({ sub: "agent-2", authTime: 1 });
    const tampered = token.slice(0, -3) + (token.endsWith("AAA") ? "BBB" : "AAA");
    const otherSecret = await sessionToken({ sub: "x" }, { secret: "another-secret-0123456789abcdef" });
    expect(await readSessionCookie(null, { cookieName: SESSION_COOKIE, secret: SECRET })).toBeNull();
    expect(await read([])).toBeNull();
    expect(await read([[SESSION_COOKIE, tampered]])).toBeNull();
    expect(await read([[SESSION_COOKIE, otherSecret]])).toBeNull();
    expect(await read([[SESSION_COOKIE, await sessionToken({ role: "agent" })]])).toBeNull();
  });

  it("never takes the session a token opened under one cookie name for another name", async () => {
    const token = await sessionToken({ sub: "agent-5", authTime: 1 });
    expect(await read([[SESSION_COOKIE, token]])).toMatchObject({ agentId: "agent-5" });
    // Same value under the __Secure- name: its salt differs, so it must not decrypt, cached or not.
    expect(await read([[SECURE_SESSION_COOKIE, token]], { cookieName: SECURE_SESSION_COOKIE })).toBeNull();
  });

  it("refuses a cookie past its expiry and Auth.js's 15 s of tolerance, also once its claims were kept", async () => {
    const token = await sessionToken({ sub: "agent-3", authTime: 1 }, { maxAge: 60 });
    expect(await read([[SESSION_COOKIE, token]])).toEqual({ agentId: "agent-3", authTime: 1 });
    expect(await read([[SESSION_COOKIE, token]], { now: Date.now() + 70_000 })).toMatchObject({
      agentId: "agent-3",
    });
    expect(await read([[SESSION_COOKIE, token]], { now: Date.now() + 76_000 })).toBeNull();
    const expired = await sessionToken({ sub: "agent-4", authTime: 1 }, { maxAge: -120 });
    expect(await read([[SESSION_COOKIE, expired]])).toBeNull();
  });
});
