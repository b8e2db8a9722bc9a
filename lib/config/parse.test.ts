import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RawEnv } from "./env-values";
import { ConfigError, parseConfig } from "./parse";

const root = join(import.meta.dirname, "../..");
const live: RawEnv = {
  PARTNER_API_BASE_URL: "https://api.provider.example/",
  PARTNER_CLIENT_ID: "partner-a",
  PARTNER_CLIENT_SECRET: "s3cr3t-value",
  AUTH_SECRET: "a".repeat(40),
  AUTH_URL: "https://vendas.partner.example",
};

function problemOf(env: RawEnv): ConfigError {
  try {
    parseConfig(env, root);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

function fileWith(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "plans-")), "plans.json");
  writeFileSync(path, content);
  return path;
}

describe("parseConfig", () => {
  it("defaults to sandbox mode with the demo client, demo catalogue and defaults", () => {
    const config = parseConfig({}, root);
    expect(config.mode).toBe("sandbox");
    expect(config.provider).toEqual({
      baseUrl: "http://127.0.0.1:4010",
      clientId: "sandbox-client",
      clientSecret: "sandbox-secret",
      tokenPath: "/core/sso/connect/token",
      salePath: "/core/financeiro/partnersale",
      partnerSource: undefined,
      timeoutMs: 15_000,
    });
    expect(config.plans?.length).toBeGreaterThanOrEqual(3);
    expect(config.dataDir).toBe(join(root, ".data"));
    expect(config.port).toBe(3000);
    expect(config.embed.allowedOrigins).toEqual([]);
  });

  it("points sandbox mode at SANDBOX_PORT and its client override", () => {
    const config = parseConfig({ SANDBOX_PORT: "4999", SANDBOX_CLIENT_ID: "other" }, root);
    expect(config.provider.baseUrl).toBe("http://127.0.0.1:4999");
    expect(config.provider.clientId).toBe("other");
  });

  it("uses the live upstream when PARTNER_API_BASE_URL is set, without a trailing slash", () => {
    const config = parseConfig({ ...live, PARTNER_SOURCE: "Parceiro X" }, root);
    expect(config.mode).toBe("live");
    expect(config.provider.baseUrl).toBe("https://api.provider.example");
    expect(config.provider.partnerSource).toBe("Parceiro X");
    expect(config.plans).toBeNull();
  });

  it.each([
    ["PARTNER_CLIENT_ID", { ...live, PARTNER_CLIENT_ID: undefined }],
    ["PARTNER_CLIENT_SECRET", { ...live, PARTNER_CLIENT_SECRET: " " }],
    ["AUTH_SECRET", { ...live, AUTH_SECRET: undefined }],
  ])("requires %s in live mode", (variable, env) => {
    const error = problemOf(env);
    expect(error.variable).toBe(variable);
    expect(error.message).toBe(`${variable}: is required when PARTNER_API_BASE_URL is set`);
  });

  it.each(["not a url", "ftp://host", "https://user:pw@host", "https://host/?q=1"])(
    "rejects PARTNER_API_BASE_URL %j",
    (value) => {
      expect(problemOf({ ...live, PARTNER_API_BASE_URL: value }).variable).toBe("PARTNER_API_BASE_URL");
    },
  );

  it("never echoes a secret's value", () => {
    const error = problemOf({ ...live, AUTH_SECRET: "short-secret" });
    expect(error.variable).toBe("AUTH_SECRET");
    expect(error.message).not.toContain("short-secret");
  });

  it.each([
    ["PARTNER_API_TIMEOUT_MS", "soon"],
    ["PARTNER_API_TIMEOUT_MS", "0"],
    ["PORT", "70000"],
    ["PARTNER_SALE_PATH", "no-slash"],
    ["DATABASE_URL", "mysql://localhost/db"],
  ])("rejects %s=%j", (variable, value) => {
    expect(problemOf({ [variable]: value }).variable).toBe(variable);
  });

  it("takes the schema owner's DATABASE_MIGRATION_URL beside DATABASE_URL, never alone", () => {
    const urls = {
      DATABASE_URL: "postgres://partner_sales_app@db/partner_sales",
      DATABASE_MIGRATION_URL: "postgres://partner_sales_owner@db/partner_sales",
    };
    expect(parseConfig(urls, root)).toMatchObject({
      databaseUrl: urls.DATABASE_URL,
      databaseMigrationUrl: urls.DATABASE_MIGRATION_URL,
    });
    expect(problemOf({ DATABASE_MIGRATION_URL: urls.DATABASE_MIGRATION_URL }).message).toContain(
      "DATABASE_MIGRATION_URL: is set but DATABASE_URL is not",
    );
    expect(problemOf({ ...urls, DATABASE_MIGRATION_URL: "mysql://db" }).variable).toBe(
      "DATABASE_MIGRATION_URL",
    );
  });

  describe("PLANS_FILE", () => {
    const plan = { id: "0b5f6a52-3b0e-4c55-9d8c-5a1d2e3f4a5b", name: "Plano", description: "d" };

    const accepted = { id: "valor", text: "O cliente aceitou o valor de {preco}" };
    const script = { version: "2026-11", text: "O {plano} custa {preco}.", confirmations: [accepted] };

    it("loads a catalogue", () => {
      expect(parseConfig({ PLANS_FILE: fileWith(JSON.stringify([plan])) }, root).plans).toEqual([plan]);
    });

    it("loads a plan's offer script, its confirmations required unless they say otherwise", () => {
      const scripted = { ...plan, price: 49.9, script };
      expect(parseConfig({ PLANS_FILE: fileWith(JSON.stringify([scripted])) }, root).plans).toEqual([
        { ...scripted, script: { ...script, confirmations: [{ ...accepted, required: true }] } },
      ]);
    });

    it.each([
      ["a missing file", "/nonexistent/plans.json", /cannot read/],
      ["bad JSON", fileWith("[{"), /not valid JSON/],
      ["a plan id that is not a UUID", fileWith(JSON.stringify([{ ...plan, id: "plan-1" }])), /\[0\.id\]/],
      ["duplicate ids", fileWith(JSON.stringify([plan, plan])), /unique/],
      ["an empty list", fileWith("[]"), /PLANS_FILE/],
      [
        "a script that says {preco} for a plan without a price",
        fileWith(JSON.stringify([{ ...plan, script: { version: "1", text: "Custa {preco}." } }])),
        /\[0\.script\]: the script says \{preco\} but the plan has no price/,
      ],
      [
        "a script whose confirmations share an id",
        fileWith(JSON.stringify([{ ...plan, script: { ...script, confirmations: [accepted, accepted] } }])),
        /\[0\.script\.confirmations\]: confirmation ids must be unique/,
      ],
      [
        "a confirmation id with spaces",
        fileWith(
          JSON.stringify([
            { ...plan, script: { ...script, confirmations: [{ ...accepted, id: "o valor" }] } },
          ]),
        ),
        /\[0\.script\.confirmations\.0\.id\]: use lower-case letters/,
      ],
    ])("rejects %s", (_case, path, message) => {
      const error = problemOf({ PLANS_FILE: path });
      expect(error.variable).toBe("PLANS_FILE");
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain("\n");
    });
  });

  describe("EMBED_ALLOWED_ORIGINS", () => {
    it("accepts exact origins", () => {
      const config = parseConfig(
        { EMBED_ALLOWED_ORIGINS: "https://portal.partner.example, http://localhost:8080" },
        root,
      );
      expect(config.embed.allowedOrigins).toEqual([
        "https://portal.partner.example",
        "http://localhost:8080",
      ]);
    });

    it.each([
      "https://*.partner.example",
      "https://portal.partner.example/app",
      "portal.partner.example",
      "*",
    ])("rejects %j", (value) => {
      expect(problemOf({ EMBED_ALLOWED_ORIGINS: value }).variable).toBe("EMBED_ALLOWED_ORIGINS");
    });
  });
});

describe("transport security", () => {
  it("requires AUTH_URL in live mode", () => {
    expect(problemOf({ ...live, AUTH_URL: undefined }).message).toBe(
      "AUTH_URL: is required when PARTNER_API_BASE_URL is set",
    );
  });

  it.each([
    ["PARTNER_API_BASE_URL", { PARTNER_API_BASE_URL: "http://api.provider.example" }],
    ["EMBED_ALLOWED_ORIGINS", { EMBED_ALLOWED_ORIGINS: "https://a.example,http://portal.example" }],
    ["AUTH_URL", { AUTH_URL: "http://vendas.partner.example" }],
  ])("refuses plain http for %s in live mode", (variable, env) => {
    const problem = problemOf({ ...live, ...env });
    expect(problem.variable).toBe(variable);
    expect(problem.message).toMatch(/must use https outside this machine/);
  });

  it("accepts plain http on loopback, in live mode too", () => {
    const config = parseConfig(
      {
        ...live,
        PARTNER_API_BASE_URL: "http://127.0.0.1:4010",
        EMBED_ALLOWED_ORIGINS: "http://localhost:3299",
        AUTH_URL: "http://localhost:3000",
      },
      root,
    );
    expect(config.provider.baseUrl).toBe("http://127.0.0.1:4010");
    expect(config.publicUrl).toBe("http://localhost:3000");
  });

  it("refuses embedding when the app itself is plain http on a real host (Secure cookies would never return)", () => {
    const problem = problemOf({
      EMBED_ALLOWED_ORIGINS: "https://portal.example",
      AUTH_URL: "http://vendas.example",
    });
    expect(problem.variable).toBe("AUTH_URL");
    expect(parseConfig({ EMBED_ALLOWED_ORIGINS: "http://localhost:3299" }, root).publicUrl).toBe(
      "http://localhost:3000",
    );
  });
});

describe("PostgreSQL over verified TLS, live", () => {
  const caFile = fileWith("-----BEGIN CERTIFICATE-----\n");
  const verified = `sslmode=verify-full&sslrootcert=${caFile}`;

  it("refuses a URL to another machine that does not ask for verified TLS, saying why and what to write", () => {
    const problem = problemOf({ ...live, DATABASE_URL: "postgres://app:pw@db.internal/partner_sales" });
    expect(problem.message).toBe(
      "DATABASE_URL: must ask for verified TLS (sslmode=verify-full, with sslrootcert=<CA file>): the connection " +
        "carries CPFs, names and password hashes. Only a loopback address or a Unix socket may go without " +
        '(got host "db.internal", no sslmode)',
    );
    expect(problem.message).not.toContain("pw");
  });

  it.each([
    "postgres://db.internal/partner_sales?sslmode=require",
    "postgres://db.internal/partner_sales?sslmode=verify-ca",
    "postgres://db.internal/partner_sales?sslmode=no-verify",
    "postgres://db.internal/partner_sales?ssl=true",
    // node-postgres reads the last of a repeated parameter, and a `host` parameter before the URL's host.
    "postgres://db.internal/partner_sales?sslmode=verify-full&sslmode=disable",
    "postgres://localhost/partner_sales?host=db.internal",
    "postgresql://10.0.0.5:5432/partner_sales",
  ])("refuses %s", (url) => {
    expect(problemOf({ ...live, DATABASE_URL: url }).message).toMatch(
      /^DATABASE_URL: must ask for verified TLS/,
    );
  });

  it("holds the migration URL to the same rule", () => {
    const problem = problemOf({
      ...live,
      DATABASE_URL: `postgres://db.internal/partner_sales?${verified}`,
      DATABASE_MIGRATION_URL: "postgres://owner@db.internal/partner_sales",
    });
    expect(problem.variable).toBe("DATABASE_MIGRATION_URL");
  });

  it("takes sslmode=verify-full, with a CA file it can read", () => {
    const urls = {
      DATABASE_URL: `postgres://app@db.internal/partner_sales?${verified}`,
      DATABASE_MIGRATION_URL: "postgres://owner@db.internal/partner_sales?sslmode=verify-full",
    };
    expect(parseConfig({ ...live, ...urls }, root)).toMatchObject({
      databaseUrl: urls.DATABASE_URL,
      databaseMigrationUrl: urls.DATABASE_MIGRATION_URL,
    });
    const missing =
      "postgres://db.internal/partner_sales?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem";
    expect(problemOf({ ...live, DATABASE_URL: missing }).message).toBe(
      'DATABASE_URL: sslrootcert names a file this process cannot read ("/nonexistent/ca.pem")',
    );
  });

  it.each([
    "postgres://127.0.0.1:5432/partner_sales",
    "postgres://127.3.2.1/partner_sales",
    "postgres://localhost/partner_sales",
    "postgres://[::1]:5432/partner_sales",
    "postgres:///partner_sales",
    "postgres://app@/partner_sales?host=/var/run/postgresql",
    "postgres://%2Fvar%2Frun%2Fpostgresql/partner_sales",
  ])("lets %s go without: loopback or a Unix socket", (url) => {
    expect(parseConfig({ ...live, DATABASE_URL: url }, root).databaseUrl).toBe(url);
  });

  it("reads a URL without a host as node-postgres does: PGHOST's", () => {
    expect(
      problemOf({ ...live, DATABASE_URL: "postgres:///partner_sales", PGHOST: "db.internal" }).message,
    ).toContain('got host "db.internal"');
  });

  it("leaves the sandbox's URLs alone", () => {
    expect(parseConfig({ DATABASE_URL: "postgres://db.internal/partner_sales" }, root).databaseUrl).toBe(
      "postgres://db.internal/partner_sales",
    );
  });
});

describe("TRUSTED_PROXY_HEADER", () => {
  it("is X-Forwarded-For unless one of the other two is named, in any case", () => {
    expect(parseConfig({}, root).clientAddressHeader).toBe("x-forwarded-for");
    expect(parseConfig({ TRUSTED_PROXY_HEADER: "X-Real-IP" }, root).clientAddressHeader).toBe("x-real-ip");
    expect(parseConfig({ TRUSTED_PROXY_HEADER: "Forwarded" }, root).clientAddressHeader).toBe("forwarded");
  });

  it("refuses any other header, naming the variable", () => {
    expect(() => parseConfig({ TRUSTED_PROXY_HEADER: "CF-Connecting-IP" }, root)).toThrow(
      /TRUSTED_PROXY_HEADER: is one of X-Forwarded-For, Forwarded or X-Real-IP/,
    );
  });
});

describe("APP_TIME_ZONE", () => {
  it("is São Paulo unless another IANA zone is named", () => {
    expect(parseConfig({}, root).timeZone).toBe("America/Sao_Paulo");
    expect(parseConfig({ APP_TIME_ZONE: "America/Manaus" }, root).timeZone).toBe("America/Manaus");
  });

  it("refuses a zone the runtime does not know, naming the variable", () => {
    expect(() => parseConfig({ APP_TIME_ZONE: "Brasil/Nowhere" }, root)).toThrow(
      /APP_TIME_ZONE: is not an IANA time zone/,
    );
  });
});

describe("CUSTOMER_DATA_RETENTION_DAYS", () => {
  it("keeps customers' data five years unless told otherwise; 0 turns retention off", () => {
    expect(parseConfig({}, root).customerDataRetentionDays).toBe(1_825);
    expect(parseConfig({ CUSTOMER_DATA_RETENTION_DAYS: "90" }, root).customerDataRetentionDays).toBe(90);
    expect(parseConfig({ CUSTOMER_DATA_RETENTION_DAYS: "0" }, root).customerDataRetentionDays).toBeNull();
  });

  it.each(["-1", "thirty", "36501", "1.5"])("refuses %j, naming the variable", (value) => {
    expect(problemOf({ CUSTOMER_DATA_RETENTION_DAYS: value }).variable).toBe("CUSTOMER_DATA_RETENTION_DAYS");
  });
});

describe("DRAIN_DELAY_SECONDS", () => {
  it("closes the listener at once after SIGTERM unless told to wait, up to two minutes", () => {
    expect(parseConfig({}, root).drainDelayMs).toBe(0);
    expect(parseConfig({ DRAIN_DELAY_SECONDS: "15" }, root).drainDelayMs).toBe(15_000);
    expect(parseConfig({ DRAIN_DELAY_SECONDS: "120" }, root).drainDelayMs).toBe(120_000);
  });

  it.each(["-1", "ten", "121", "0.5"])("refuses %j, naming the variable", (value) => {
    expect(problemOf({ DRAIN_DELAY_SECONDS: value }).variable).toBe("DRAIN_DELAY_SECONDS");
  });
});

describe("TRUSTED_PROXIES", () => {
  it("trusts no forwarded header when unset", () => {
    expect(parseConfig({}, root).trustedProxies).toEqual({ kind: "none" });
  });

  it("takes a hop count or addresses and networks", () => {
    expect(parseConfig({ TRUSTED_PROXIES: "2" }, root).trustedProxies).toEqual({ kind: "hops", count: 2 });
    expect(parseConfig({ TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.7 ,fd00::/8" }, root).trustedProxies).toEqual({
      kind: "networks",
      networks: [
        { address: "10.0.0.0", prefix: 8, family: 4 },
        { address: "192.0.2.7", prefix: 32, family: 4 },
        { address: "fd00::", prefix: 8, family: 6 },
      ],
    });
  });

  it.each(["0", "11", "10.0.0.0/33", "::/129", "proxy.internal", "10.0.0.1/8/2", ","])(
    "refuses %j",
    (value) => {
      expect(problemOf({ TRUSTED_PROXIES: value }).variable).toBe("TRUSTED_PROXIES");
    },
  );
});

describe("sessions", () => {
  it("end after 60 idle minutes by default, or SESSION_IDLE_MINUTES, and always 12 hours after sign-in", () => {
    expect(parseConfig({}, root).sessions).toEqual({ idleMs: 3_600_000, absoluteMs: 43_200_000 });
    expect(parseConfig({ SESSION_IDLE_MINUTES: "15" }, root).sessions.idleMs).toBe(900_000);
    expect(problemOf({ SESSION_IDLE_MINUTES: "0" }).variable).toBe("SESSION_IDLE_MINUTES");
  });
});

describe("PASSWORD_SECOND_FACTOR", () => {
  it("is required live and off in the sandbox unless told otherwise, in any letter case", () => {
    expect(parseConfig(live).passwordSecondFactor).toBe("required");
    expect(parseConfig({}, root).passwordSecondFactor).toBe("off");
    expect(parseConfig({ ...live, PASSWORD_SECOND_FACTOR: "Supervisors" }).passwordSecondFactor).toBe(
      "supervisors",
    );
    expect(parseConfig({ ...live, PASSWORD_SECOND_FACTOR: "off" }).passwordSecondFactor).toBe("off");
    expect(parseConfig({ PASSWORD_SECOND_FACTOR: "required" }, root).passwordSecondFactor).toBe("required");
  });

  it("refuses any other value, naming the variable", () => {
    expect(() => parseConfig({ PASSWORD_SECOND_FACTOR: "yes" }, root)).toThrow(
      'PASSWORD_SECOND_FACTOR: is "required", "supervisors" or "off" (got "yes")',
    );
  });
});
