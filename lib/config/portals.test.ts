import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RawEnv } from "./env-values";
import { ConfigError, parseConfig } from "./parse";

const root = join(import.meta.dirname, "../..");
const ORIGINS = "https://portal-a.example,https://portal-b.example";
const SECRET = "portal-a-shared-secret-0123456789abcdef";

const p256 = generateKeyPairSync("ec", { namedCurve: "P-256" });
const ed25519 = generateKeyPairSync("ed25519");
const pem = (key: typeof p256.publicKey) => key.export({ format: "pem", type: "spki" }) as string;

function portalsFile(portals: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), "portals-")), "portals.json");
  writeFileSync(path, typeof portals === "string" ? portals : JSON.stringify(portals));
  return path;
}

const embed = (env: RawEnv) => parseConfig({ EMBED_ALLOWED_ORIGINS: ORIGINS, ...env }, root).embed;

function problemOf(env: RawEnv): ConfigError {
  try {
    embed(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("embed portals", () => {
  it("are none by default: sign-in by portal token is off", () => {
    expect(embed({}).portals).toEqual([]);
  });

  it("reads each portal's issuer, algorithm and key from EMBED_PORTALS_FILE", () => {
    const file = portalsFile([
      {
        issuer: "https://portal-a.example",
        alg: "HS256",
        secret: SECRET,
        adoptLegacyAgents: true,
        emailDomains: ["Parceira.com.br", "@vendas.parceira.com.br"],
        allowSupervisors: true,
      },
      { issuer: "portal-b", alg: "ES256", publicKey: pem(p256.publicKey), createAgents: false },
      {
        issuer: "portal-c",
        alg: "EdDSA",
        publicKey: ed25519.publicKey.export({ format: "jwk" }),
        emailDomains: ["c.example"],
        createAgents: true,
      },
    ]);
    const portals = embed({ EMBED_PORTALS_FILE: file }).portals;
    expect(
      portals.map(({ issuer, algorithm, adoptsLegacyAgents }) => [issuer, algorithm, adoptsLegacyAgents]),
    ).toEqual([
      ["https://portal-a.example", "HS256", true],
      ["portal-b", "ES256", false],
      ["portal-c", "EdDSA", false],
    ]);
    expect(
      portals.map(({ emailDomains, createsAgents, allowsSupervisors }) => [
        emailDomains,
        createsAgents,
        allowsSupervisors,
      ]),
    ).toEqual([
      [["parceira.com.br", "vendas.parceira.com.br"], true, true],
      [[], false, false],
      [["c.example"], true, false],
    ]);
    expect(portals[1]!.key.equals(p256.publicKey)).toBe(true);
    expect(portals[2]!.key.equals(ed25519.publicKey)).toBe(true);
    // Keys serialize to nothing, so a Config logged by mistake shows no secret.
    expect(JSON.stringify(portals)).not.toContain(SECRET.slice(0, 10));
  });

  it("takes EMBED_SSO_SECRET as the one allowed portal's HS256 key, its origin the issuer", () => {
    const portals = embed({
      EMBED_SSO_SECRET: SECRET,
      EMBED_ALLOWED_ORIGINS: "https://portal-a.example",
    }).portals;
    expect(portals).toMatchObject([
      {
        issuer: "https://portal-a.example",
        algorithm: "HS256",
        adoptsLegacyAgents: true,
        // Without its domains it creates nobody: it signs in the agents an operator linked to it.
        emailDomains: [],
        createsAgents: false,
        allowsSupervisors: false,
      },
    ]);
    const creating = embed({
      EMBED_SSO_SECRET: SECRET,
      EMBED_SSO_EMAIL_DOMAINS: "parceira.com.br, Outra.example",
      EMBED_ALLOWED_ORIGINS: "https://portal-a.example",
    }).portals;
    expect(creating).toMatchObject([
      { emailDomains: ["parceira.com.br", "outra.example"], createsAgents: true },
    ]);
  });

  const entry = {
    issuer: "portal-b",
    alg: "ES256",
    publicKey: pem(p256.publicKey),
    emailDomains: ["b.example"],
  };
  it.each([
    [
      "both variables",
      { EMBED_SSO_SECRET: SECRET, EMBED_PORTALS_FILE: portalsFile([entry]) },
      "EMBED_SSO_SECRET",
      /not both/,
    ],
    [
      "a short shared secret",
      { EMBED_SSO_SECRET: "short-secret", EMBED_ALLOWED_ORIGINS: "https://portal-a.example" },
      "EMBED_SSO_SECRET",
      /at least 32/,
    ],
    [
      // Either portal could sign tokens in the other's name: each needs its own key in the file.
      "one shared secret for two portals",
      { EMBED_SSO_SECRET: SECRET },
      "EMBED_SSO_SECRET",
      /one portal's secret, but EMBED_ALLOWED_ORIGINS names 2/,
    ],
    [
      "a shared secret without allowed origins",
      { EMBED_SSO_SECRET: SECRET, EMBED_ALLOWED_ORIGINS: "" },
      "EMBED_SSO_SECRET",
      /needs EMBED_ALLOWED_ORIGINS/,
    ],
    [
      "a portals file without allowed origins",
      { EMBED_PORTALS_FILE: portalsFile([entry]), EMBED_ALLOWED_ORIGINS: "" },
      "EMBED_PORTALS_FILE",
      /needs EMBED_ALLOWED_ORIGINS/,
    ],
    [
      "a missing file",
      { EMBED_PORTALS_FILE: "/nonexistent/portals.json" },
      "EMBED_PORTALS_FILE",
      /cannot be read \(ENOENT\)/,
    ],
    ["bad JSON", { EMBED_PORTALS_FILE: portalsFile("[{") }, "EMBED_PORTALS_FILE", /not valid JSON/],
    [
      "the shorthand's domains without its secret",
      { EMBED_SSO_EMAIL_DOMAINS: "parceira.com.br" },
      "EMBED_SSO_EMAIL_DOMAINS",
      /is set but EMBED_SSO_SECRET is not/,
    ],
    [
      "the shorthand's domains beside a portals file",
      { EMBED_SSO_EMAIL_DOMAINS: "parceira.com.br", EMBED_PORTALS_FILE: portalsFile([entry]) },
      "EMBED_SSO_EMAIL_DOMAINS",
      /give each portal its emailDomains in EMBED_PORTALS_FILE/,
    ],
    [
      "a shorthand domain that is none",
      {
        EMBED_SSO_SECRET: SECRET,
        EMBED_SSO_EMAIL_DOMAINS: "parceira.com.br,*.evil",
        EMBED_ALLOWED_ORIGINS: "https://portal-a.example",
      },
      "EMBED_SSO_EMAIL_DOMAINS",
      /"\*\.evil" is not a domain/,
    ],
    ["an empty list", { EMBED_PORTALS_FILE: portalsFile([]) }, "EMBED_PORTALS_FILE", /non-empty JSON array/],
  ])("refuses %s, naming the variable", (_case, env, variable, message) => {
    const error = problemOf(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(new RegExp(`^${variable}: `));
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("\n");
    expect(error.message).not.toContain(SECRET);
  });

  it.each([
    ["no issuer", [{ ...entry, issuer: "" }], /\[0\]\.issuer/],
    ["an issuer with spaces around", [{ ...entry, issuer: " portal-b " }], /\[0\]\.issuer/],
    [
      "an algorithm not offered",
      [{ ...entry, alg: "RS256" }],
      /\[0\]\.alg must be one of HS256, ES256, EdDSA/,
    ],
    ["alg none", [{ ...entry, alg: "none" }], /\[0\]\.alg/],
    [
      "a portal that creates agents in no domain",
      [{ issuer: "portal-b", alg: "ES256", publicKey: pem(p256.publicKey) }],
      /\[0\]: a portal that creates agents needs "emailDomains"/,
    ],
    [
      "an empty list of domains",
      [{ ...entry, emailDomains: [] }],
      /\[0\]\.emailDomains must be a non-empty list/,
    ],
    [
      "a domain that is none",
      [{ ...entry, emailDomains: ["b.example", "*.example"] }],
      /\[0\]\.emailDomains\[1\] is not a domain/,
    ],
    [
      "a domain given as text",
      [{ ...entry, emailDomains: "b.example" }],
      /\[0\]\.emailDomains must be a non-empty list/,
    ],
    [
      "createAgents that is no boolean",
      [{ ...entry, createAgents: "yes" }],
      /\[0\]\.createAgents must be true or false/,
    ],
    [
      "allowSupervisors that is no boolean",
      [{ ...entry, allowSupervisors: 1 }],
      /\[0\]\.allowSupervisors must be true or false/,
    ],
    [
      "a short secret",
      [{ issuer: "a", alg: "HS256", secret: "too-short" }],
      /\[0\]\.secret must be text of at least 32/,
    ],
    ["an HS256 portal with a public key", [{ ...entry, alg: "HS256" }], /HS256 takes a "secret"/],
    [
      "an ES256 portal with a secret",
      [{ issuer: "a", alg: "ES256", secret: SECRET }],
      /ES256 takes the portal's "publicKey"/,
    ],
    [
      "a key of another curve",
      [{ ...entry, publicKey: pem(ed25519.publicKey) }],
      /not a P-256 \(ES256\) public key/,
    ],
    ["an EdDSA portal with a P-256 key", [{ ...entry, alg: "EdDSA" }], /not an Ed25519 \(EdDSA\) public key/],
    [
      "text that is no key",
      [{ ...entry, publicKey: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----" }],
      /not a PEM public key/,
    ],
    [
      "a private key in PEM",
      [{ ...entry, publicKey: p256.privateKey.export({ format: "pem", type: "pkcs8" }) }],
      /is a private key: give Partner Sales the public key only/,
    ],
    [
      "a private key as a JWK",
      [{ ...entry, publicKey: p256.privateKey.export({ format: "jwk" }) }],
      /is a private key/,
    ],
    ["a misspelt field", [{ ...entry, publickey: "x" }], /\[0\] has an unknown field "publickey"/],
    [
      "the same issuer twice",
      [entry, { ...entry, publicKey: pem(generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey) }],
      /\[1\]\.issuer repeats \[0\]/,
    ],
    ["one key for two portals", [entry, { ...entry, issuer: "portal-d" }], /\[1\] has the same key as \[0\]/],
    [
      "two portals adopting legacy agents",
      [
        { ...entry, adoptLegacyAgents: true },
        { issuer: "a", alg: "HS256", secret: SECRET, adoptLegacyAgents: true, createAgents: false },
      ],
      /adoptLegacyAgents may be true for one portal only/,
    ],
  ])("refuses a portals file with %s, naming the variable and the entry", (_case, portals, message) => {
    const file = portalsFile(portals);
    const error = problemOf({ EMBED_PORTALS_FILE: file });
    expect(error.variable).toBe("EMBED_PORTALS_FILE");
    expect(error.message).toMatch(new RegExp(`^EMBED_PORTALS_FILE: ${file}`));
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain("\n");
    expect(error.message).not.toContain(SECRET);
  });
});
