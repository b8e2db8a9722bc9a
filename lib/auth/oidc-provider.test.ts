import { generateKeyPairSync } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { customFetch } from "@auth/core";
import { clockTolerance } from "oauth4webapi";
import { describe, expect, it, vi } from "vitest";
import { oidcConfig } from "@/test/oidc-config";
import { idpFetch } from "./oidc-attempt";
import { oidcProviders } from "./oidc-provider";

// next-auth's entry needs Next.js's server runtime; its `customFetch` is @auth/core's, which it re-exports.
vi.mock("next-auth", async () => ({ customFetch: (await import("@auth/core")).customFetch }));

const config = oidcConfig({ clientAuth: { method: "client_secret_post", secret: "the-secret" } });

describe("oidcProviders", () => {
  it("gives Auth.js the client's method and secret, and oauth4webapi the clock tolerance", () => {
    const [provider] = oidcProviders(config);
    expect(provider).toMatchObject({
      clientSecret: "the-secret",
      client: { token_endpoint_auth_method: "client_secret_post" },
    });
    expect((provider!.client as Record<symbol, unknown>)[clockTolerance]).toBe(60);
    expect(provider![customFetch]).toBe(idpFetch);
  });

  it("with private_key_jwt, has Auth.js send no secret, and signs the token request on its way out", () => {
    const key = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    const [provider] = oidcProviders({
      ...config,
      clientAuth: { method: "private_key_jwt", key, algorithm: "ES256", keyId: "k", thumbprints: undefined },
    });
    expect(provider!.clientSecret).toBeUndefined();
    expect(provider!.client).toMatchObject({ token_endpoint_auth_method: "none" });
    expect(provider![customFetch]).not.toBe(idpFetch);
  });

  it("shares Auth.js's oauth4webapi: a copy of its own would not know the tolerance's symbol", () => {
    // One copy, at the top: npm nesting another under next-auth or @auth/core would make the tolerance fall silently
    // back to oauth4webapi's 30 s.
    const modules = join(import.meta.dirname, "../../node_modules");
    expect(existsSync(join(modules, "oauth4webapi/package.json"))).toBe(true);
    for (const nested of ["@auth/core", "next-auth"]) {
      expect(existsSync(join(modules, nested, "node_modules/oauth4webapi"))).toBe(false);
    }
  });
});
