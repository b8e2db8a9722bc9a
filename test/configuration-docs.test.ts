import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RawEnv } from "@/lib/config/env-values";
import { ConfigError, parseConfig, type Config } from "@/lib/config/parse";
import { SERVICE_NAME_DEFAULT } from "@/lib/tracing-setup";
import { SANDBOX_DEFAULTS } from "@/sandbox/defaults";
import { appNodeOptions } from "@/scripts/app-node-options";

// The configuration is documented twice, for two readers: docs/configuration.md (one table) and .env.example (a
// file to copy). Both are checked here against what the code reads, so neither drifts from it.

const root = join(import.meta.dirname, "..");

/** The table's rows: the variables each names (one, or two that go together), and its default cell. */
function documented(): { names: string[]; defaults: string }[] {
  const page = readFileSync(join(root, "docs/configuration.md"), "utf8");
  return [...page.matchAll(/^\| (`[A-Z][^|]*?) +\| (.*?) +\|/gm)].map(([, names, defaults]) => ({
    names: [...names!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map(([, name]) => name!),
    defaults: defaults!,
  }));
}

/** `NAME=value` lines of .env.example, commented out or not. */
function exampleFile(): Map<string, string> {
  const text = readFileSync(join(root, ".env.example"), "utf8");
  return new Map(
    [...text.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, name, value]) => [name!, value!]),
  );
}

/**
 * The default a row states, when it is one value per variable: "`15000`", "`1825` (five years)", or for a row of
 * two variables "`200000`, `600`". Undefined when it is words ("unset", "generated…") or depends on something
 * ("`required` live, `off` in sandbox mode", "`http://localhost:$PORT`").
 */
function literalDefaults(names: string[], cell: string): (string | undefined)[] {
  const literals = [...cell.matchAll(/`([^`]*)`/g)].map(([, value]) => value!);
  const bare = cell.replace(/`[^`]*`/g, "").replace(/\([^)]*\)/g, "");
  if (
    literals.length !== names.length ||
    !/^[\s,]*$/.test(bare) ||
    literals.some((each) => each.includes("$"))
  ) {
    return names.map(() => undefined);
  }
  return literals;
}

const oidcKey = (() => {
  const dir = mkdtempSync(join(tmpdir(), "config-docs-"));
  const path = join(dir, "client.key");
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  writeFileSync(path, privateKey.export({ format: "pem", type: "pkcs8" }));
  return path;
})();

/** A deployment with every part on: live provider, PostgreSQL, OIDC, a portal, webhooks. */
const EVERYTHING_ON: RawEnv = {
  PARTNER_API_BASE_URL: "https://api.provider.example",
  PARTNER_CLIENT_ID: "partner-a",
  PARTNER_CLIENT_SECRET: "s3cr3t-value",
  AUTH_SECRET: "a".repeat(40),
  AUTH_URL: "https://vendas.partner.example",
  DATABASE_URL: "postgres://app:password@127.0.0.1:5432/partner_sales",
  OIDC_ISSUER: "https://login.partner.example/realms/atendimento",
  OIDC_CLIENT_ID: "partner-sales",
  OIDC_CLIENT_SECRET: "oidc-s3cr3t",
  OIDC_ALLOWED_EMAIL_DOMAINS: "parceira.com.br",
  OIDC_ROLE_CLAIM: "roles",
  OIDC_SUPERVISOR_VALUES: "supervisor",
  EMBED_ALLOWED_ORIGINS: "https://portal.partner.example",
  EMBED_SSO_SECRET: "b".repeat(40),
  EMBED_SSO_EMAIL_DOMAINS: "parceira.com.br",
  WEBHOOK_ALLOWED_NETWORKS: "10.20.0.0/16",
};

/** The deployments the parser is run under: between them every variable it knows is read. */
const DEPLOYMENTS: Record<string, RawEnv> = {
  sandbox: {},
  "everything on": EVERYTHING_ON,
  "OIDC with a client key": {
    ...EVERYTHING_ON,
    OIDC_CLIENT_SECRET: undefined,
    OIDC_CLIENT_AUTH_METHOD: "private_key_jwt",
    OIDC_CLIENT_PRIVATE_KEY_FILE: oidcKey,
    OIDC_CLIENT_KEY_ID: "partner-sales-2026",
  },
  // A PostgreSQL URL without a host is PGHOST's, as node-postgres reads it.
  "PostgreSQL by PGHOST": { ...EVERYTHING_ON, DATABASE_URL: "postgres:///partner_sales" },
};

/** Every variable the configuration parser looks at when it parses this environment. */
function readByParser(env: RawEnv): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === "string") read.add(name);
      return Reflect.get(target, name);
    },
    has(target, name) {
      if (typeof name === "string") read.add(name);
      return Reflect.has(target, name);
    },
  });
  parseConfig(recording, root);
  return read;
}

/**
 * Variables read outside the parser, each where it is read: the sandbox's own process, the tracing set-up (read
 * before the app's configuration exists), and what `npm start` gives the server's Node.js.
 */
const READ_ELSEWHERE: Record<string, { file: string; defaultValue?: () => string }> = {
  SANDBOX_HOST: { file: "sandbox/index.ts", defaultValue: () => SANDBOX_DEFAULTS.host },
  SANDBOX_PORT: { file: "sandbox/index.ts" },
  SANDBOX_CLIENT_ID: { file: "sandbox/index.ts" },
  SANDBOX_CLIENT_SECRET: { file: "sandbox/index.ts" },
  OTEL_EXPORTER_OTLP_ENDPOINT: { file: "instrumentation.ts" },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { file: "instrumentation.ts" },
  OTEL_SERVICE_NAME: { file: "lib/tracing-setup.ts", defaultValue: () => SERVICE_NAME_DEFAULT },
  NODE_OPTIONS: { file: "scripts/start.ts", defaultValue: () => appNodeOptions(undefined) },
};

/** Read from the environment, but not the operator's to set: Node.js's and Next.js's, CI's and the tests' own. */
const NOT_CONFIGURATION = new Set([
  "NODE_ENV",
  "NEXT_RUNTIME",
  "CI",
  "DEBIAN_FRONTEND",
  "TEST_DATABASE_URL",
  "PLAYWRIGHT_JSON_OUTPUT_NAME",
]);

/** Every `process.env.NAME` (or `process.env["NAME"]`) in the code that runs in the app, the sandbox and scripts. */
function readInSource(): Set<string> {
  const names = new Set<string>();
  const visit = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path)) if (entry !== "node_modules") visit(join(path, entry));
      return;
    }
    if (!/\.(ts|tsx|mjs|js)$/.test(path) || /\.test\.tsx?$/.test(path)) return;
    for (const [, name] of readFileSync(path, "utf8").matchAll(/process\.env(?:\.|\[")([A-Z][A-Z0-9_]*)/g)) {
      names.add(name!);
    }
  };
  for (const top of [
    "app",
    "components",
    "lib",
    "sandbox",
    "scripts",
    "auth.ts",
    "proxy.ts",
    "instrumentation.ts",
  ]) {
    visit(join(root, top));
  }
  visit(join(root, "next.config.mjs"));
  return names;
}

describe("the configuration, as documented", () => {
  const rows = documented();
  const table = rows.flatMap(({ names }) => names);
  const example = exampleFile();
  const parsed = new Set(Object.values(DEPLOYMENTS).flatMap((env) => [...readByParser(env)]));
  const configuration = new Set([...parsed, ...Object.keys(READ_ELSEWHERE)]);

  it("the parser runs under each deployment used here", () => {
    for (const env of Object.values(DEPLOYMENTS)) expect(() => parseConfig(env, root)).not.toThrow();
  });

  it("docs/configuration.md has a row for every variable the code reads, and none it does not", () => {
    expect([...table].sort()).toEqual([...configuration].sort());
  });

  it(".env.example names every variable the code reads, and none it does not", () => {
    expect([...example.keys()].sort()).toEqual([...configuration].sort());
  });

  it("every variable read with process.env outside the parser is one of those, or not configuration", () => {
    const unknown = [...readInSource()].filter(
      (name) => !configuration.has(name) && !NOT_CONFIGURATION.has(name),
    );
    expect(unknown).toEqual([]);
    for (const [name, { file }] of Object.entries(READ_ELSEWHERE)) {
      expect(readFileSync(join(root, file), "utf8"), `${name} in ${file}`).toContain(name);
    }
  });

  // Setting a variable to the default its row states changes nothing the parser decides: the row is the truth.
  const defaults = rows.flatMap(({ names, defaults: cell }) =>
    literalDefaults(names, cell).flatMap((value, index) =>
      value === undefined ? [] : [[names[index]!, value] as const],
    ),
  );

  // Where setting it is refused (an OIDC variable without OIDC_ISSUER), the variable does not apply; it must apply
  // somewhere. The deployment's own value, if it sets one, is taken out first.
  it.each(defaults.filter(([name]) => parsed.has(name)))(
    "%s defaults to %s, as its row says",
    (name, value) => {
      const appliesIn: string[] = [];
      for (const [deployment, env] of Object.entries(DEPLOYMENTS)) {
        const without = { ...env, [name]: undefined };
        let unset: Config, set: Config;
        try {
          unset = parseConfig(without, root);
          set = parseConfig({ ...without, [name]: value }, root);
        } catch (error) {
          if (error instanceof ConfigError) continue;
          throw error;
        }
        expect(set, deployment).toEqual(unset);
        appliesIn.push(deployment);
      }
      expect(appliesIn).not.toEqual([]);
    },
  );

  it.each(defaults.filter(([name]) => !parsed.has(name)))(
    "%s defaults to %s where it is read, as its row says",
    (name, value) => {
      const { file, defaultValue } = READ_ELSEWHERE[name]!;
      // Each default read outside the parser is a constant the code uses, so the row is held to that constant.
      expect(defaultValue, `${name} in ${file}: export its default and name it here`).toBeDefined();
      expect(defaultValue!()).toBe(value);
    },
  );

  it(".env.example shows each stated default as it is, or leaves the value empty", () => {
    const differing = defaults.filter(([name, value]) => ![value, ""].includes(example.get(name) ?? ""));
    expect(differing).toEqual([]);
  });
});
