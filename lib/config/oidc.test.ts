import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RawEnv } from "./env-values";
import { ConfigError, parseConfig } from "./parse";

const root = join(import.meta.dirname, "../..");
const oidc: RawEnv = {
  AUTH_URL: "https://vendas.parceira.example",
  OIDC_ISSUER: "https://login.parceira.example/realms/atendimento",
  OIDC_CLIENT_ID: "partner-sales",
  OIDC_CLIENT_SECRET: "client-secret-from-the-idp",
};

function problemOf(env: RawEnv): string {
  try {
    parseConfig(env, root);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("OIDC and password configuration", () => {
  it("is off by default, with passwords on", () => {
    const config = parseConfig({}, root);
    expect(config.oidc).toBeNull();
    expect(config.passwordSignIn).toBe(true);
  });

  it("reads the provider with its defaults: auto-create on, any domain, everyone an agent", () => {
    expect(parseConfig(oidc, root).oidc).toEqual({
      issuer: "https://login.parceira.example/realms/atendimento",
      clientId: "partner-sales",
      clientSecret: "client-secret-from-the-idp",
      name: "SSO",
      autoCreate: true,
      allowedEmailDomains: [],
      adoptPasswordAccounts: false,
      roleClaim: undefined,
      supervisorValues: [],
    });
  });

  it("reads the name, the domains (lower case) and the role claim with its values", () => {
    const config = parseConfig(
      {
        ...oidc,
        OIDC_NAME: "Keycloak da Parceira",
        OIDC_AUTO_CREATE: "off",
        OIDC_ALLOWED_EMAIL_DOMAINS: "Parceira.com.br, @vendas.parceira.com.br",
        OIDC_ROLE_CLAIM: "realm_access.roles",
        OIDC_SUPERVISOR_VALUES: "supervisor, Coordenação",
        PASSWORD_SIGN_IN: "OFF",
      },
      root,
    );
    expect(config.oidc).toMatchObject({
      name: "Keycloak da Parceira",
      autoCreate: false,
      allowedEmailDomains: ["parceira.com.br", "vendas.parceira.com.br"],
      roleClaim: "realm_access.roles",
      supervisorValues: ["supervisor", "Coordenação"],
    });
    expect(config.passwordSignIn).toBe(false);
  });

  it("adopts password accounts only when turned on, and only in named domains", () => {
    const adopting = {
      ...oidc,
      OIDC_ALLOWED_EMAIL_DOMAINS: "parceira.com.br",
      OIDC_ADOPT_PASSWORD_ACCOUNTS: "on",
    };
    expect(parseConfig(adopting, root).oidc?.adoptPasswordAccounts).toBe(true);
    expect(
      parseConfig({ ...adopting, OIDC_ADOPT_PASSWORD_ACCOUNTS: "off" }, root).oidc?.adoptPasswordAccounts,
    ).toBe(false);
  });

  it("keeps the issuer exactly as written (discovery compares it), loopback http allowed", () => {
    const local = { ...oidc, AUTH_URL: "http://localhost:3000", OIDC_ISSUER: "http://127.0.0.1:4400/" };
    expect(parseConfig(local, root).oidc?.issuer).toBe("http://127.0.0.1:4400/");
  });

  it.each<[string, RawEnv, string]>([
    [
      "a client id without an issuer",
      { OIDC_CLIENT_ID: "x" },
      "OIDC_CLIENT_ID: is set but OIDC_ISSUER is not",
    ],
    [
      "no AUTH_URL",
      { ...oidc, AUTH_URL: "" },
      "AUTH_URL: is required when OIDC_ISSUER is set (the redirect URI registered at the IdP)",
    ],
    ["no client id", { ...oidc, OIDC_CLIENT_ID: " " }, "OIDC_CLIENT_ID: is required when OIDC_ISSUER is set"],
    ["no client secret", { ...oidc, OIDC_CLIENT_SECRET: "" }, "OIDC_CLIENT_SECRET: is required"],
    [
      "a plain-http issuer",
      { ...oidc, OIDC_ISSUER: "http://login.parceira.example" },
      "OIDC_ISSUER: must use https",
    ],
    [
      "an issuer with a query",
      { ...oidc, OIDC_ISSUER: "https://login.example/?tenant=a" },
      "OIDC_ISSUER: must not",
    ],
    [
      "an issuer that is no URL",
      { ...oidc, OIDC_ISSUER: "login.example" },
      "OIDC_ISSUER: must be an absolute",
    ],
    [
      "a plain-http AUTH_URL",
      { ...oidc, AUTH_URL: "http://vendas.parceira.example" },
      "AUTH_URL: must use https outside this machine",
    ],
    [
      "a wildcard domain",
      { ...oidc, OIDC_ALLOWED_EMAIL_DOMAINS: "*.parceira.com" },
      "OIDC_ALLOWED_EMAIL_DOMAINS",
    ],
    ["an e-mail as domain", { ...oidc, OIDC_ALLOWED_EMAIL_DOMAINS: "ana@parceira.com" }, "is not a domain"],
    ["a claim without values", { ...oidc, OIDC_ROLE_CLAIM: "roles" }, "OIDC_SUPERVISOR_VALUES: is required"],
    ["values without a claim", { ...oidc, OIDC_SUPERVISOR_VALUES: "sup" }, "OIDC_ROLE_CLAIM: is required"],
    [
      "a switch that is neither",
      { ...oidc, OIDC_AUTO_CREATE: "maybe" },
      'OIDC_AUTO_CREATE: is "on" or "off"',
    ],
    ["a long name", { ...oidc, OIDC_NAME: "x".repeat(41) }, "OIDC_NAME: is a short label"],
    [
      "adoption with no domains to adopt in",
      { ...oidc, OIDC_ADOPT_PASSWORD_ACCOUNTS: "on" },
      "OIDC_ADOPT_PASSWORD_ACCOUNTS: needs OIDC_ALLOWED_EMAIL_DOMAINS",
    ],
    [
      "passwords off and nothing else",
      { PASSWORD_SIGN_IN: "off" },
      "PASSWORD_SIGN_IN: is off and nothing else signs agents in",
    ],
  ])("stops start-up on %s, naming the variable", (_case, env, message) => {
    expect(problemOf(env)).toContain(message);
  });

  it("never quotes the client secret in a problem", () => {
    expect(problemOf({ ...oidc, OIDC_ISSUER: "ftp://x", OIDC_CLIENT_SECRET: "do-not-print" })).not.toContain(
      "do-not-print",
    );
  });
});
