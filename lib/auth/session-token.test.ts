import { encode } from "next-auth/jwt";
import { describe, expect, it } from "vitest";
import { authCookies } from "./session-cookie";
import { readSessionCookie } from "./session-token";

const SESSION_COOKIE = "authjs.session-token";
const SECURE_SESSION_COOKIE = "__Host-authjs.session-token";
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

describe("authCookies", () => {
  const cookies = (publicUrl: string, allowedOrigins: string[] = []) =>
    authCookies({ publicUrl, embed: { allowedOrigins, portals: [] } });

  it("are __Host- over https, so no sibling subdomain can plant one; plain names over http", () => {
    expect(cookies("https://vendas.example").sessionToken).toEqual({
      name: SECURE_SESSION_COOKIE,
      options: { httpOnly: true, path: "/", sameSite: "lax", secure: true },
    });
    expect(cookies("http://localhost:3000").sessionToken).toEqual({
      name: SESSION_COOKIE,
      options: { httpOnly: true, path: "/", sameSite: "lax", secure: false },
    });
  });

  it("keep the prefix inside portals, where they are SameSite=None, Secure and Partitioned", () => {
    const embedded = cookies("https://vendas.example", ["https://portal.example"]);
    expect(embedded.sessionToken).toEqual({
      name: SECURE_SESSION_COOKIE,
      options: { httpOnly: true, path: "/", sameSite: "none", secure: true, partitioned: true },
    });
    expect(embedded.csrfToken.name).toBe("__Host-authjs.csrf-token");
    expect(cookies("http://localhost:3210", ["http://localhost:3299"]).sessionToken.options.secure).toBe(
      true,
    );
  });

  it("give the OIDC checks (PKCE, state, nonce) the same policy, for the 15 minutes a sign-in may take", () => {
    for (const [publicUrl, origins] of [
      ["https://vendas.example", []],
      ["https://vendas.example", ["https://portal.example"]],
    ] as const) {
      const all = cookies(publicUrl, [...origins]);
      for (const check of [all.pkceCodeVerifier, all.state, all.nonce]) {
        expect(check.name).toMatch(/^__Host-authjs\./);
        expect(check.options).toEqual({ ...all.sessionToken.options, maxAge: 900 });
      }
    }
  });
});

describe("readSessionCookie", () => {
  it("reads the agent and session id from a cookie Auth.js encrypted", async () => {
    const token = await sessionToken({ sub: "agent-1", role: "agent", sid: "session-1" });
    expect(await read([[SESSION_COOKIE, token]])).toEqual({
      agentId: "agent-1",
      sessionId: "session-1",
    });
  });

  it("reads a cookie split into chunks the way Auth.js splits long ones", async () => {
    const token = await sessionToken({ sub: "agent-chunked", sid: "s5" });
    const cut = Math.floor(token.length / 2);
    expect(
      await read([
        [`${SESSION_COOKIE}.0`, token.slice(0, cut)],
        [`${SESSION_COOKIE}.1`, token.slice(cut)],
      ]),
    ).toEqual({ agentId: "agent-chunked", sessionId: "s5" });
  });

  it("takes the first of two cookies with the same name, as Auth.js's parser does", async () => {
    const first = await sessionToken({ sub: "agent-first", sid: "s1" });
    const second = await sessionToken({ sub: "agent-second", sid: "s1" });
    expect(
      await read([
        [SESSION_COOKIE, first],
        [SESSION_COOKIE, second],
      ]),
    ).toMatchObject({ agentId: "agent-first" });
  });

  it("finds no cookie, and refuses a tampered one, one made with another secret, one without an agent and one without a session", async () => {
    const token = await sessionToken({ sub: "agent-2", sid: "s1" });
    const tampered = token.slice(0, -3) + (token.endsWith("AAA") ? "BBB" : "AAA");
    const otherSecret = await sessionToken(
      { sub: "x", sid: "s1" },
      { secret: "another-secret-0123456789abcdef" },
    );
    expect(await readSessionCookie(null, { cookieName: SESSION_COOKIE, secret: SECRET })).toBeNull();
    expect(await read([])).toBeNull();
    expect(await read([[SESSION_COOKIE, tampered]])).toBe("unreadable");
    expect(await read([[SESSION_COOKIE, otherSecret]])).toBe("unreadable");
    expect(await read([[SESSION_COOKIE, await sessionToken({ role: "agent" })]])).toBe("unreadable");
    // From before sessions were recorded: no session row to check, so no session.
    expect(await read([[SESSION_COOKIE, await sessionToken({ sub: "agent-2" })]])).toBe("unreadable");
  });

  it("never takes the session a token opened under one cookie name for another name", async () => {
    const token = await sessionToken({ sub: "agent-5", sid: "s1" });
    expect(await read([[SESSION_COOKIE, token]])).toMatchObject({ agentId: "agent-5" });
    // Same value under the __Host- name: its salt differs, so it must not decrypt, cached or not.
    expect(await read([[SECURE_SESSION_COOKIE, token]], { cookieName: SECURE_SESSION_COOKIE })).toBe(
      "unreadable",
    );
  });

  it("refuses a cookie past its expiry and Auth.js's 15 s of tolerance, also once its claims were kept", async () => {
    const token = await sessionToken({ sub: "agent-3", sid: "s1" }, { maxAge: 60 });
    expect(await read([[SESSION_COOKIE, token]])).toEqual({ agentId: "agent-3", sessionId: "s1" });
    expect(await read([[SESSION_COOKIE, token]], { now: Date.now() + 70_000 })).toMatchObject({
      agentId: "agent-3",
    });
    expect(await read([[SESSION_COOKIE, token]], { now: Date.now() + 76_000 })).toBe("unreadable");
    const expired = await sessionToken({ sub: "agent-4", sid: "s1" }, { maxAge: -120 });
    expect(await read([[SESSION_COOKIE, expired]])).toBe("unreadable");
  });
});
