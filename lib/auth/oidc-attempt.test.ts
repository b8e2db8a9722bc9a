import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { encode } from "next-auth/jwt";
import { getConfig } from "@/lib/env";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import {
  diagnose,
  forgetDiscoveries,
  idpFetch,
  noteAuthError,
  stateCookieMatches,
  withOidcAttempt,
} from "./oidc-attempt";
import { resolveAuthSecret } from "./secret";
import { authCookies } from "./session-cookie";

/** An error as Auth.js throws it: a `type`, and the error it wraps in `cause.err`. */
function authError(type: string, cause?: Record<string, unknown>): Error {
  return Object.assign(new Error(`${type}. Read more at https://errors.authjs.dev`), { type, cause });
}

/** An oauth4webapi error as it is after the production build: a minified class name, and its code. */
function protocolError(code: string, message: string, fields: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { name: "tt", code }, fields);
}

/** The state cookie as Auth.js seals it for `state` (our secret, the cookie's name as salt, our provider). */
async function stateCookie(state: string, changes: { provider?: string; secret?: string } = {}) {
  const name = authCookies(getConfig()).state.name;
  const sealed = await encode({
    token: { value: state, provider: changes.provider ?? "oidc" },
    secret: changes.secret ?? resolveAuthSecret(getConfig()),
    salt: name,
    maxAge: 900,
  });
  return `${name}=${sealed}`;
}

/** A callback's cookie and state as the browser that started the sign-in sends them. */
const started = async () => ({ cookie: `authjs.nonce=n; ${await stateCookie("s")}`, state: "s" });

const attempt = (error: unknown, idpError?: string) => ({ unreachable: undefined, error, idpError });

describe("diagnose", () => {
  it("tells the agent's cancel at the IdP from the IdP's other refusals", () => {
    expect(diagnose(attempt(authError("OAuthCallbackError"), "access_denied"))).toMatchObject({
      failure: "oidc_cancelled",
      detail: "access_denied",
    });
    expect(diagnose(attempt(authError("OAuthCallbackError"), "login_required"))).toMatchObject({
      failure: "oidc_failed",
    });
    // A client the IdP does not allow this flow is the set-up, not something to try again.
    expect(diagnose(attempt(authError("OAuthCallbackError"), "unauthorized_client"))).toMatchObject({
      failure: "oidc_misconfigured",
      idpError: { code: "unauthorized_client", from: "authorization" },
    });
    // Whatever the IdP (or an attacker) wrote there is not copied to the log unless it is one plain word.
    expect(diagnose(attempt(authError("OAuthCallbackError"), "<script>"))).toEqual({
      failure: "oidc_failed",
      error: "OAuthCallbackError",
      detail: undefined,
    });
  });

  it("reads a missing or foreign check cookie, and a state or nonce that does not match, as a state mismatch", () => {
    expect(diagnose(attempt(authError("InvalidCheck")))).toMatchObject({ failure: "oidc_state_mismatch" });
    for (const message of [
      'unexpected "state" response parameter value',
      'unexpected JWT "nonce" claim value',
    ]) {
      const wrapped = authError("CallbackRouteError", {
        err: protocolError("OAUTH_INVALID_RESPONSE", message),
      });
      expect(diagnose(attempt(wrapped)).failure).toBe("oidc_state_mismatch");
    }
  });

  it("reads the IdP's refusal of a code (replayed, expired) as a failed sign-in, with its error code", () => {
    const refused = protocolError(
      "OAUTH_RESPONSE_BODY_ERROR",
      "server responded with an error in the response body",
      {
        error: "invalid_grant",
      },
    );
    expect(diagnose(attempt(authError("CallbackRouteError", { err: refused })))).toEqual({
      failure: "oidc_failed",
      error: "CallbackRouteError/OAUTH_RESPONSE_BODY_ERROR",
      detail: "invalid_grant: server responded with an error in the response body",
    });
  });

  it("reads our own failure (the database) as unavailable, and a network failure as the IdP unreachable", () => {
    const database = authError("CallbackRouteError", {
      err: new Error("connect ECONNREFUSED 127.0.0.1:5432"),
    });
    expect(diagnose(attempt(database))).toEqual({
      failure: "sign_in_unavailable",
      error: "CallbackRouteError/Error",
    });
    expect(
      diagnose({ unreachable: { detail: "ECONNREFUSED" }, error: new TypeError("fetch failed") }),
    ).toEqual({
      failure: "oidc_unreachable",
      detail: "ECONNREFUSED",
    });
  });
});

describe("withOidcAttempt", () => {
  afterEach(() => vi.restoreAllMocks());

  it("passes a clean step's value through", async () => {
    expect(await withOidcAttempt("start", async () => "https://idp.example/auth")).toEqual({
      ok: true,
      value: "https://idp.example/auth",
    });
  });

  it("turns an error Auth.js logged, or threw, into one failure and one log line without values", async () => {
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    const logged = await withOidcAttempt(
      "callback",
      async () => {
        expect(noteAuthError(authError("InvalidCheck"))).toBe(true);
        return new Response(null, { status: 302 });
      },
      await started(),
    );
    expect(logged).toEqual({ ok: false, failure: "oidc_state_mismatch" });
    const thrown = await withOidcAttempt(
      "callback",
      async () => {
        throw authError("OAuthCallbackError");
      },
      { ...(await started()), idpError: "access_denied" },
    );
    expect(thrown).toEqual({ ok: false, failure: "oidc_cancelled" });
    expect(warn.mock.calls.filter(([event]) => event === "auth.oidc_sign_in_failed")).toEqual([
      [
        "auth.oidc_sign_in_failed",
        { stage: "callback", reason: "oidc_state_mismatch", error: "InvalidCheck" },
      ],
      [
        "auth.oidc_sign_in_failed",
        {
          stage: "callback",
          reason: "oidc_cancelled",
          error: "OAuthCallbackError",
          detail: "access_denied",
          idpError: "access_denied",
          idpErrorFrom: "authorization",
        },
      ],
    ]);
    // And each is a failed sign-in in the security log, without the error's text.
    expect(warn.mock.calls.filter(([event]) => event === "auth.sign_in")).toEqual([
      [
        "auth.sign_in",
        expect.objectContaining({ category: "security", outcome: "failure", reason: "oidc_state_mismatch" }),
      ],
      [
        "auth.sign_in",
        expect.objectContaining({ category: "security", outcome: "failure", reason: "oidc_cancelled" }),
      ],
    ]);
    // Outside an attempt, Auth.js's errors are logged the usual way.
    expect(noteAuthError(authError("InvalidCheck"))).toBe(false);
  });

  it("knows the IdP unreachable from its requests: refused connections and 5xx answers", async () => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    const server = createServer((_request, response) => response.writeHead(503).end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const failing = await withOidcAttempt(
      "start",
      async () => (await idpFetch(`http://127.0.0.1:${port}/`)).status,
    );
    expect(failing).toEqual({ ok: false, failure: "oidc_unreachable" });
    await new Promise((resolve) => server.close(resolve));

    const refused = await withOidcAttempt("start", () => idpFetch(`http://127.0.0.1:${port}/`));
    expect(refused).toEqual({ ok: false, failure: "oidc_unreachable" });
  });

  it("reads the token endpoint's own error, from WWW-Authenticate or the body, and counts it", async () => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    const answers = [
      // oidc-provider and Keycloak: a 401 whose header and body both name it.
      {
        status: 401,
        headers: {
          "www-authenticate": 'Basic realm="idp", error="invalid_client", error_description="nope"',
        },
        body: JSON.stringify({ error: "invalid_client", error_description: "client authentication failed" }),
      },
      // Entra ID: a 401 with the body alone, its description naming the expired secret.
      {
        status: 401,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          error: "invalid_client",
          error_description: "AADSTS7000222: keys are expired for 'ana@parceira.example'.\r\n",
        }),
      },
      // The header alone, unquoted, over an HTML page.
      { status: 401, headers: { "www-authenticate": "Basic error=unauthorized_client" }, body: "<html>" },
      // An IdP that quotes the code it refused: the log never holds it.
      {
        status: 400,
        headers: {},
        body: JSON.stringify({ error: "invalid_grant", error_description: "code the-code-1234 was used" }),
      },
    ];
    let next = 0;
    const server = createServer((_request, response) => {
      const answer = answers[next++]!;
      response.writeHead(answer.status, answer.headers).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const counted = async () => {
      const metric = await metrics().registry.getSingleMetric("partner_sales_oidc_idp_errors_total")!.get();
      const found = metric.values.find(
        ({ labels }) => labels.from === "token" && labels.error === "invalid_client",
      );
      return found?.value ?? 0;
    };
    const before = await counted();
    const tokenRequest = async () => {
      const response = await idpFetch(`http://127.0.0.1:${port}/token`, {
        method: "POST",
        body: new URLSearchParams({ grant_type: "authorization_code", code: "the-code-1234" }),
      });
      // Auth.js then throws at the refusal it cannot name.
      if (!response.ok)
        throw authError("CallbackRouteError", {
          err: protocolError("OAUTH_WWW_AUTHENTICATE_CHALLENGE", "challenge"),
        });
    };
    try {
      const results = [];
      for (let index = 0; index < answers.length; index += 1) {
        results.push(await withOidcAttempt("callback", tokenRequest, await started()));
      }
      expect(results.map((result) => !result.ok && result.failure)).toEqual([
        "oidc_misconfigured",
        "oidc_misconfigured",
        "oidc_misconfigured",
        "oidc_failed",
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const lines = vi.mocked(log.warn).mock.calls.filter(([event]) => event === "auth.oidc_sign_in_failed");
    expect(lines.map(([, fields]) => fields)).toEqual([
      expect.objectContaining({
        reason: "oidc_misconfigured",
        idpError: "invalid_client",
        idpErrorFrom: "token",
        idpErrorDescription: "client authentication failed",
      }),
      expect.objectContaining({
        idpError: "invalid_client",
        idpErrorDescription: "AADSTS7000222: keys are expired for '<e-mail>'.",
      }),
      expect.objectContaining({ idpError: "unauthorized_client", detail: "unauthorized_client" }),
      expect.objectContaining({
        reason: "oidc_failed",
        idpError: "invalid_grant",
        idpErrorDescription: "code <redacted> was used",
      }),
    ]);
    expect(await counted()).toBe(before + 2);
  });

  it("sends nothing to an IdP address that is not https (loopback aside)", async () => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    const sent = vi.spyOn(globalThis, "fetch");
    const insecure = await withOidcAttempt(
      "callback",
      () => idpFetch("http://login.parceira.example/token", { method: "POST", body: "code=x" }),
      await started(),
    );
    expect(insecure).toEqual({ ok: false, failure: "oidc_unreachable" });
    expect(log.warn).toHaveBeenCalledWith(
      "auth.oidc_sign_in_failed",
      expect.objectContaining({ detail: "insecure_url" }),
    );
    expect(sent).not.toHaveBeenCalled();
  });
});

describe("diagnose, for what is not the IdP's", () => {
  it("takes a start without the CSRF token as an expired attempt, and names the database behind AccessDenied", () => {
    expect(diagnose(attempt(authError("MissingCSRF")))).toEqual({
      failure: "oidc_state_mismatch",
      error: "MissingCSRF",
    });
    const database = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(diagnose(attempt(authError("AccessDenied", { err: database })))).toEqual({
      failure: "sign_in_unavailable",
      error: "AccessDenied/ECONNREFUSED",
    });
  });
});

describe("a callback whose state cookie does not decrypt and match", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is refused without running the step, and one that matches runs", async () => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    const step = vi.fn(async () => "ran");
    const refused = { ok: false, failure: "oidc_state_mismatch" };
    const good = await stateCookie("s");
    for (const request of [
      { cookie: null, state: "s" },
      { cookie: "authjs.nonce=a; xauthjs.state=b", state: "s" },
      // Named right, but junk, sealed under another secret, for another provider, or for another state.
      { cookie: "authjs.state=b", state: "b" },
      { cookie: await stateCookie("s", { secret: "another-secret-0123456789abcdef0123" }), state: "s" },
      { cookie: await stateCookie("s", { provider: "credentials" }), state: "s" },
      { cookie: good, state: "t" },
      { cookie: good, state: null },
    ])
      expect(await withOidcAttempt("callback", step, request), JSON.stringify(request)).toEqual(refused);
    expect(step).not.toHaveBeenCalled();
    expect(log.warn).toHaveBeenCalledWith("auth.oidc_sign_in_failed", {
      stage: "callback",
      reason: "oidc_state_mismatch",
      error: "StateCookieMismatch",
    });
    expect(await withOidcAttempt("callback", step, await started())).toEqual({ ok: true, value: "ran" });
    expect(await stateCookieMatches(`a=1; ${good}; b=2`, "s")).toBe(true);
  });
});

describe("the IdP's discovery", () => {
  afterEach(() => {
    forgetDiscoveries();
    vi.restoreAllMocks();
  });

  it("is asked once for a burst of callbacks, always at a start, and a failed answer is not kept", async () => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    let served = 0;
    let failing = true;
    const server = createServer((_request, response) => {
      served += 1;
      if (failing) return void response.writeHead(503).end();
      response.writeHead(200, { "content-type": "application/json" }).end('{"issuer":"x"}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const discovery = `http://127.0.0.1:${port}/realm/.well-known/openid-configuration`;
    const callback = async () =>
      withOidcAttempt("callback", async () => (await idpFetch(discovery)).json(), await started());
    expect(await callback()).toEqual({ ok: false, failure: "oidc_unreachable" });
    failing = false;
    for (let i = 0; i < 3; i += 1) expect(await callback()).toEqual({ ok: true, value: { issuer: "x" } });
    expect(served).toBe(2);
    // A start asks again; so does anything outside a sign-in step, and any other request.
    await withOidcAttempt("start", () => idpFetch(discovery));
    await idpFetch(discovery);
    await withOidcAttempt(
      "callback",
      () => idpFetch(`http://127.0.0.1:${port}/token`, { method: "POST" }),
      await started(),
    );
    expect(served).toBe(5);
    await new Promise((resolve) => server.close(resolve));
  });
});
