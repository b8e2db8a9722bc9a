import { generateKeyPairSync } from "node:crypto";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { withOidcAttempt } from "./oidc-attempt";
import { clientAssertion, withClientAssertion } from "./oidc-client-auth";

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const auth = {
  method: "private_key_jwt" as const,
  key: privateKey,
  algorithm: "ES256",
  keyId: "vendas-2026",
  thumbprints: undefined,
};
const TOKEN_ENDPOINT = "https://login.parceira.example/realms/a/protocol/openid-connect/token";

describe("clientAssertion", () => {
  it("is a JWT signed with the client's key, for the token endpoint alone, good for a minute and the clocks' skew", async () => {
    const now = new Date("2026-11-29T10:00:00Z");
    const jwt = await clientAssertion(auth, "partner-sales", TOKEN_ENDPOINT, { skewSeconds: 60, now });
    const { payload, protectedHeader } = await jwtVerify(jwt, publicKey, { currentDate: now });
    expect(protectedHeader).toEqual({ alg: "ES256", typ: "JWT", kid: "vendas-2026" });
    expect(payload).toMatchObject({
      iss: "partner-sales",
      sub: "partner-sales",
      aud: TOKEN_ENDPOINT,
      // Dated back by the tolerance, for an IdP whose clock is behind; valid as long past its minute, for one ahead.
      iat: now.getTime() / 1000 - 60,
      nbf: now.getTime() / 1000 - 60,
      exp: now.getTime() / 1000 + 120,
    });
    const again = await clientAssertion(auth, "partner-sales", TOKEN_ENDPOINT, { skewSeconds: 60, now });
    expect((await jwtVerify(again, publicKey, { currentDate: now })).payload.jti).not.toBe(payload.jti);
  });

  it("names a certificate by its thumbprints, for Entra ID", async () => {
    const jwt = await clientAssertion(
      { ...auth, keyId: undefined, thumbprints: { sha256: "s256", sha1: "s1" } },
      "partner-sales",
      TOKEN_ENDPOINT,
      { skewSeconds: 0 },
    );
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: "ES256", typ: "JWT", "x5t#S256": "s256", x5t: "s1" });
  });
});

describe("withClientAssertion", () => {
  it("adds the assertion to the token request only, leaving the rest of the form as Auth.js wrote it", async () => {
    const sent = vi.fn(async (_input: RequestInfo | URL, _init?: RequestInit) => new Response("{}"));
    const fetch = withClientAssertion(auth, "partner-sales", 60, sent);
    await fetch(`${TOKEN_ENDPOINT.replace("/token", "")}/.well-known/openid-configuration`);
    expect(sent.mock.calls[0]![1]).toBeUndefined();

    const form = new URLSearchParams({
      grant_type: "authorization_code",
      code: "c",
      client_id: "partner-sales",
    });
    await fetch(TOKEN_ENDPOINT, { method: "POST", body: form });
    const body = sent.mock.calls[1]![1]!.body as URLSearchParams;
    expect(Object.fromEntries(body)).toMatchObject({
      grant_type: "authorization_code",
      code: "c",
      client_id: "partner-sales",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    });
    const { payload } = await jwtVerify(body.get("client_assertion")!, publicKey);
    expect(payload.aud).toBe(TOKEN_ENDPOINT);
    expect(body.has("client_secret")).toBe(false);
  });

  it("tells a key that will not sign apart from the IdP's refusal: the set-up, and nothing sent", async () => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    // Start-up refuses such a key (lib/config/oidc.ts); one that slipped through still says what it is.
    const weak = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey;
    const sent = vi.fn(async () => new Response("{}"));
    const fetch = withClientAssertion({ ...auth, key: weak, algorithm: "RS256" }, "partner-sales", 60, sent);
    const form = new URLSearchParams({ grant_type: "authorization_code", code: "c" });
    const result = await withOidcAttempt("start", () =>
      fetch(TOKEN_ENDPOINT, { method: "POST", body: form }),
    );
    expect(result).toEqual({ ok: false, failure: "oidc_misconfigured" });
    expect(sent).not.toHaveBeenCalled();
    expect(log.warn).toHaveBeenCalledWith(
      "auth.oidc_sign_in_failed",
      expect.objectContaining({ reason: "oidc_misconfigured", detail: "client_assertion_unsigned" }),
    );
  });
});
