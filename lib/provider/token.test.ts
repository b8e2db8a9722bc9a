import { describe, expect, it } from "vitest";
import { clientCredentialsRequest, processTokenResponse, renewalDelayMs } from "./token";

const config = {
  baseUrl: "https://provider.example",
  tokenPath: "/core/sso/connect/token",
  clientId: "partner",
  clientSecret: "s3cret value&more",
  timeoutMs: 1_000,
};

describe("clientCredentialsRequest", () => {
  it("posts the grant with the credentials form-encoded in the body", () => {
    const { url, init } = clientCredentialsRequest(config);
    expect(url).toBe("https://provider.example/core/sso/connect/token");
    expect(init.method).toBe("POST");
    expect(init.headers).toMatchObject({ "Content-Type": "application/x-www-form-urlencoded" });
    expect(String(init.body)).toBe(
      "grant_type=client_credentials&client_id=partner&client_secret=s3cret+value%26more",
    );
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });
});

describe("processTokenResponse", () => {
  const token = { access_token: "abc", token_type: "Bearer", expires_in: 600 };

  it.each([
    ["a token", 200, token, { ok: true, accessToken: "abc", lifetimeSeconds: 600 }],
    [
      "a token of any letter case of Bearer",
      200,
      { ...token, token_type: "bearer" },
      { ok: true, accessToken: "abc", lifetimeSeconds: 600 },
    ],
    [
      "a token without a lifetime: an hour",
      200,
      { access_token: "abc", token_type: "Bearer" },
      { ok: true, accessToken: "abc", lifetimeSeconds: 3600 },
    ],
    [
      "a token with a lifetime of 0: an hour",
      200,
      { ...token, expires_in: 0 },
      { ok: true, accessToken: "abc", lifetimeSeconds: 3600 },
    ],
    [
      "the wrong credentials",
      401,
      { error: "invalid_client" },
      { ok: false, code: "partner_api.invalid_client", httpStatus: 401 },
    ],
    [
      "the wrong credentials, answered 400",
      400,
      { error: "invalid_client" },
      { ok: false, code: "partner_api.invalid_client", httpStatus: 400 },
    ],
    [
      "another refusal",
      400,
      { error: "unsupported_grant_type" },
      {
        ok: false,
        code: "partner_api.token_rejected",
        httpStatus: 400,
        upstreamError: "unsupported_grant_type",
      },
    ],
    [
      "a wrong path",
      404,
      undefined,
      { ok: false, code: "partner_api.token_rejected", httpStatus: 404, upstreamError: null },
    ],
    [
      "rate limiting: transient",
      429,
      undefined,
      { ok: false, code: "partner_api.token_unavailable", httpStatus: 429, reason: "server-error" },
    ],
    [
      "a server error",
      503,
      undefined,
      { ok: false, code: "partner_api.token_unavailable", httpStatus: 503, reason: "server-error" },
    ],
    [
      "a 200 that is not a token",
      200,
      { access_token: "" },
      { ok: false, code: "partner_api.token_unavailable", httpStatus: 200, reason: "malformed" },
    ],
    [
      "a 200 that is not JSON",
      200,
      undefined,
      { ok: false, code: "partner_api.token_unavailable", httpStatus: 200, reason: "malformed" },
    ],
    [
      "a token of another type",
      200,
      { ...token, token_type: "mac" },
      { ok: false, code: "partner_api.token_unavailable", httpStatus: 200, reason: "malformed" },
    ],
  ])("%s", (_what, status, body, expected) => {
    expect(processTokenResponse(status, body)).toEqual(expected);
  });
});

describe("renewalDelayMs", () => {
  it("renews five minutes early, or at half the lifetime of a token living under ten minutes", () => {
    expect(renewalDelayMs(3600)).toBe(55 * 60_000);
    expect(renewalDelayMs(600)).toBe(5 * 60_000);
    expect(renewalDelayMs(6)).toBe(3_000);
  });
});
