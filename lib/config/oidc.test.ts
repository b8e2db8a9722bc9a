import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeTestCa } from "../../e2e/support/certificates";
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
      clientAuth: { method: "client_secret_basic", secret: "client-secret-from-the-idp" },
      name: "SSO",
      autoCreate: true,
      allowedEmailDomains: [],
      adoptPasswordAccounts: false,
      roleClaim: undefined,
      supervisorValues: [],
      emailClaim: { text: "email", steps: ["email"] },
      trustUnverifiedEmails: false,
      clockToleranceSeconds: 60,
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
      roleClaim: { text: "realm_access.roles", steps: ["realm_access", "roles"] },
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
      "a role claim path that does not parse",
      { ...oidc, OIDC_ROLE_CLAIM: "resource_access[vendas.callcenter].roles", OIDC_SUPERVISOR_VALUES: "s" },
      'OIDC_ROLE_CLAIM: is a claim name or a path such as realm_access.roles or resource_access["vendas.callcenter"].roles',
    ],
    [
      "an e-mail claim path that does not parse",
      { ...oidc, OIDC_EMAIL_CLAIM: "a." },
      "OIDC_EMAIL_CLAIM: is a claim",
    ],
    [
      "trust named as a switch rather than the issuer",
      { ...oidc, OIDC_TRUST_UNVERIFIED_EMAILS: "on" },
      "OIDC_TRUST_UNVERIFIED_EMAILS: names the issuer",
    ],
    [
      "an unknown client method",
      { ...oidc, OIDC_CLIENT_AUTH_METHOD: "basic" },
      "OIDC_CLIENT_AUTH_METHOD: is one of",
    ],
    [
      "a secret method with key settings",
      { ...oidc, OIDC_CLIENT_KEY_ID: "k1" },
      "OIDC_CLIENT_KEY_ID: is only read with OIDC_CLIENT_AUTH_METHOD=private_key_jwt",
    ],
    [
      "private_key_jwt without a key",
      { ...oidc, OIDC_CLIENT_SECRET: "", OIDC_CLIENT_AUTH_METHOD: "private_key_jwt" },
      "OIDC_CLIENT_PRIVATE_KEY_FILE: is required with OIDC_CLIENT_AUTH_METHOD=private_key_jwt",
    ],
    [
      "private_key_jwt with a secret left beside it",
      { ...oidc, OIDC_CLIENT_AUTH_METHOD: "private_key_jwt" },
      "OIDC_CLIENT_SECRET: is not used with private_key_jwt",
    ],
    [
      "a key file that is not there",
      {
        ...oidc,
        OIDC_CLIENT_SECRET: "",
        OIDC_CLIENT_AUTH_METHOD: "private_key_jwt",
        OIDC_CLIENT_PRIVATE_KEY_FILE: "/nonexistent/key.pem",
      },
      "OIDC_CLIENT_PRIVATE_KEY_FILE: cannot be read (ENOENT): /nonexistent/key.pem",
    ],
    [
      "a clock tolerance out of range",
      { ...oidc, OIDC_CLOCK_TOLERANCE_SECONDS: "301" },
      "OIDC_CLOCK_TOLERANCE_SECONDS: is whole seconds from 0 to 300",
    ],
    ["a clock tolerance in minutes", { ...oidc, OIDC_CLOCK_TOLERANCE_SECONDS: "2m" }, "is whole seconds"],
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

  it("reads the e-mail claim, the trusted issuer and the clock tolerance", () => {
    const config = parseConfig(
      {
        ...oidc,
        OIDC_EMAIL_CLAIM: "upn",
        OIDC_TRUST_UNVERIFIED_EMAILS: oidc.OIDC_ISSUER,
        OIDC_CLOCK_TOLERANCE_SECONDS: "120",
        OIDC_CLIENT_AUTH_METHOD: "client_secret_post",
      },
      root,
    ).oidc;
    expect(config).toMatchObject({
      emailClaim: { text: "upn", steps: ["upn"] },
      trustUnverifiedEmails: true,
      clockToleranceSeconds: 120,
      clientAuth: { method: "client_secret_post", secret: "client-secret-from-the-idp" },
    });
  });
});

describe("private_key_jwt configuration", () => {
  const dir = mkdtempSync(join(tmpdir(), "partner-sales-oidc-key-"));
  const ca = makeTestCa();
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    ca.remove();
  });
  const write = (name: string, pem: string) => {
    const file = join(dir, name);
    writeFileSync(file, pem);
    return file;
  };
  const keyed = (extra: RawEnv): RawEnv => ({
    ...oidc,
    OIDC_CLIENT_SECRET: "",
    OIDC_CLIENT_AUTH_METHOD: "private_key_jwt",
    ...extra,
  });

  it("takes an RSA key (RS256, or PS256 when asked) with its key id", () => {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const file = write("rsa.pem", privateKey.export({ type: "pkcs8", format: "pem" }).toString());
    const auth = parseConfig(keyed({ OIDC_CLIENT_PRIVATE_KEY_FILE: file, OIDC_CLIENT_KEY_ID: "k1" }), root)
      .oidc?.clientAuth;
    expect(auth).toMatchObject({
      method: "private_key_jwt",
      algorithm: "RS256",
      keyId: "k1",
      thumbprints: undefined,
    });
    // The key never shows when the configuration is printed.
    expect(JSON.stringify(auth)).not.toContain("PRIVATE");
    const pss = parseConfig(
      keyed({ OIDC_CLIENT_PRIVATE_KEY_FILE: file, OIDC_CLIENT_KEY_ALG: "PS256" }),
      root,
    );
    expect(pss.oidc?.clientAuth).toMatchObject({ algorithm: "PS256" });
    expect(problemOf(keyed({ OIDC_CLIENT_PRIVATE_KEY_FILE: file, OIDC_CLIENT_KEY_ALG: "ES256" }))).toContain(
      "OIDC_CLIENT_KEY_ALG: is RS256 or PS256 for this key",
    );
  });

  it("derives the algorithm of an EC key from its curve, and refuses what is no key", () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-384" });
    const file = write("ec.pem", privateKey.export({ type: "sec1", format: "pem" }).toString());
    expect(parseConfig(keyed({ OIDC_CLIENT_PRIVATE_KEY_FILE: file }), root).oidc?.clientAuth).toMatchObject({
      algorithm: "ES384",
    });
    const publicOnly = write(
      "public.pem",
      generateKeyPairSync("ec", { namedCurve: "P-256" })
        .publicKey.export({ type: "spki", format: "pem" })
        .toString(),
    );
    expect(problemOf(keyed({ OIDC_CLIENT_PRIVATE_KEY_FILE: publicOnly }))).toContain(
      "OIDC_CLIENT_PRIVATE_KEY_FILE: is not an unencrypted PEM private key",
    );
    const encrypted = write(
      "encrypted.pem",
      generateKeyPairSync("ec", { namedCurve: "P-256" })
        .privateKey.export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "senha" })
        .toString(),
    );
    expect(problemOf(keyed({ OIDC_CLIENT_PRIVATE_KEY_FILE: encrypted }))).toContain(
      "is not an unencrypted PEM",
    );
  });

  it("refuses keys that could never sign an assertion: short RSA, RSA-PSS only", () => {
    const short = write(
      "short.pem",
      generateKeyPairSync("rsa", { modulusLength: 1024 })
        .privateKey.export({ type: "pkcs8", format: "pem" })
        .toString(),
    );
    expect(problemOf(keyed({ OIDC_CLIENT_PRIVATE_KEY_FILE: short }))).toContain(
      "holds a 1024-bit RSA key: at least 2048 bits",
    );
    const pss = write(
      "pss.pem",
      generateKeyPairSync("rsa-pss", { modulusLength: 2048 })
        .privateKey.export({ type: "pkcs8", format: "pem" })
        .toString(),
    );
    expect(problemOf(keyed({ OIDC_CLIENT_PRIVATE_KEY_FILE: pss }))).toContain("holds a rsa-pss key");
  });

  it("takes the certificate's thumbprints for Entra ID, and only the certificate of that very key", () => {
    const issued = ca.issue("partner-sales-client", ["DNS:partner-sales.example"]);
    const env = keyed({
      OIDC_CLIENT_PRIVATE_KEY_FILE: issued.keyFile,
      OIDC_CLIENT_CERTIFICATE_FILE: issued.certificateFile,
    });
    const certificate = new X509Certificate(readFileSync(issued.certificateFile));
    const sha256 = Buffer.from(certificate.fingerprint256.replaceAll(":", ""), "hex").toString("base64url");
    const sha1 = Buffer.from(certificate.fingerprint.replaceAll(":", ""), "hex").toString("base64url");
    expect(parseConfig(env, root).oidc?.clientAuth).toMatchObject({
      algorithm: "ES256",
      thumbprints: { sha256, sha1 },
    });
    expect(problemOf({ ...env, OIDC_CLIENT_CERTIFICATE_FILE: ca.caFile })).toContain(
      "OIDC_CLIENT_CERTIFICATE_FILE: is not the certificate of OIDC_CLIENT_PRIVATE_KEY_FILE's key",
    );
  });
});
