import { isIP } from "node:net";
import { resolve } from "node:path";
import { z } from "zod";
import { databaseTlsProblem } from "./database-url";
import { isHttpsOrLoopback, text, type RawEnv } from "./env-values";
import { OidcConfigError, parseOidc, parseSwitch, type OidcConfig } from "./oidc";
import { PlanCatalogueError, readPlanCatalogue, type Plan } from "./plans";
import { parseEmbedPortals, PortalConfigError, type Portal } from "./portals";
import { SANDBOX_DEFAULTS } from "@/sandbox/defaults";

export interface Config {
  /** "sandbox" when PARTNER_API_BASE_URL is unset: the bundled sandbox upstream stands in for the provider. */
  mode: "sandbox" | "live";
  provider: {
    baseUrl: string;
    clientId: string;
    clientSecret: string;
    tokenPath: string;
    salePath: string;
    partnerSource: string | undefined;
    timeoutMs: number;
  };
  plans: Plan[] | null;
  databaseUrl: string | undefined;
  /**
   * DATABASE_MIGRATION_URL: the schema's owner, who migrates; the app then connects as DATABASE_URL's role and gives it
   * only what it needs (lib/db/grants.ts). Unset: DATABASE_URL migrates (and owns everything).
   */
  databaseMigrationUrl: string | undefined;
  dataDir: string;
  authSecret: string | undefined;
  /** Where people reach the app (AUTH_URL); decides the session cookies' names and flags. */
  publicUrl: string;
  /**
   * Whether AUTH_URL was set (always, live). Unset (a developer's sandbox), the app answers whatever host it is
   * reached by (127.0.0.1, a LAN address), and the cross-site check takes the request's own host as this site's.
   */
  publicUrlConfigured: boolean;
  sessions: {
    /** A session with no request for this long has ended (SESSION_IDLE_MINUTES). */
    idleMs: number;
    /** A session ends this long after sign-in, however it is refreshed. */
    absoluteMs: number;
  };
  /** Whose forwarding headers are believed: none, the nearest N hops, or listed addresses and networks. */
  trustedProxies: TrustedProxies;
  /** The one header a trusted proxy writes the client into (TRUSTED_PROXY_HEADER); no other is read. */
  clientAddressHeader: ClientAddressHeader;
  /** Bearer token for health details (and metrics); unset = details for signed-in supervisors only. */
  metricsToken: string | undefined;
  embed: {
    allowedOrigins: string[];
    /** The portals whose signed tokens sign agents in; empty = sign-in by portal token is off. */
    portals: Portal[];
  };
  /** Sign-in with the partner's OpenID Connect provider; null = off (OIDC_ISSUER unset). */
  oidc: OidcConfig | null;
  /** E-mail and password sign-in (PASSWORD_SIGN_IN); the CLI manages accounts either way. */
  passwordSignIn: boolean;
  /**
   * Who must add a second factor to a password (PASSWORD_SECOND_FACTOR): everyone, supervisors only, or nobody (an
   * agent who added one is still asked for it). `required` by default live, `off` in the sandbox.
   */
  passwordSecondFactor: SecondFactorPolicy;
  /** IANA zone of the times people read: history, sale page, export (APP_TIME_ZONE). */
  timeZone: string;
  /**
   * Days a closed sale keeps its customer's personal data (CUSTOMER_DATA_RETENTION_DAYS, default 1,825: five
   * years); null ("0") = kept until the customer asks for erasure.
   */
  customerDataRetentionDays: number | null;
  /** Ceilings on requests that are expensive or tell something (lib/dal/limits.ts; docs/production.md: "Limits"). */
  limits: RequestLimits;
  /**
   * After SIGTERM, how long readiness answers 503 while everything is still served, before the listener closes
   * (DRAIN_DELAY_SECONDS): time for a load balancer that probes readiness to stop sending here. 0 behind nginx,
   * which learns from the refused connection and retries it elsewhere.
   */
  drainDelayMs: number;
  /** Webhook deliveries (lib/webhooks; docs/api-and-webhooks.md: "Webhooks"). */
  webhooks: WebhookConfig;
  port: number;
  sandboxPort: number;
  /** `npm start` also appends the app's and the sandbox's log lines here. */
  logFile: string | undefined;
}

export interface WebhookConfig {
  /**
   * Private networks deliveries may reach although the guard refuses them (WEBHOOK_ALLOWED_NETWORKS, CIDR list): an
   * on-premises CRM. In the sandbox, this host too (`npm run webhooks -- listen`).
   */
  allowedNetworks: string[];
  /** One attempt's time limit, connection to the answer's end (WEBHOOK_TIMEOUT_SECONDS). */
  timeoutMs: number;
  /** Plain `http://` endpoints: the sandbox only; live mode delivers over HTTPS. */
  allowHttp: boolean;
}

export const SECOND_FACTOR_POLICIES = ["required", "supervisors", "off"] as const;
export type SecondFactorPolicy = (typeof SECOND_FACTOR_POLICIES)[number];

function secondFactorPolicyFrom(env: RawEnv, mode: Config["mode"]): SecondFactorPolicy {
  const value = text(env, "PASSWORD_SECOND_FACTOR")?.toLowerCase();
  if (value === undefined) return mode === "live" ? "required" : "off";
  if (!(SECOND_FACTOR_POLICIES as readonly string[]).includes(value)) {
    throw new ConfigError(
      "PASSWORD_SECOND_FACTOR",
      `is "required", "supervisors" or "off" (got "${text(env, "PASSWORD_SECOND_FACTOR")}")`,
    );
  }
  return value as SecondFactorPolicy;
}

export type TrustedProxies =
  | { kind: "none" }
  | { kind: "hops"; count: number }
  /** Addresses and CIDR networks, each with its IP version. */
  | { kind: "networks"; networks: { address: string; prefix: number; family: 4 | 6 }[] };

const CLIENT_ADDRESS_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip"] as const;
export type ClientAddressHeader = (typeof CLIENT_ADDRESS_HEADERS)[number];

/**
 * Which header the trusted proxies write: one, never a fallback to another, since whichever header a proxy passes
 * through untouched is the client's to write.
 */
export function parseClientAddressHeader(value: string | undefined): ClientAddressHeader {
  const header = (value ?? "x-forwarded-for").toLowerCase();
  if (!(CLIENT_ADDRESS_HEADERS as readonly string[]).includes(header)) {
    throw new ConfigError(
      "TRUSTED_PROXY_HEADER",
      `is one of X-Forwarded-For, Forwarded or X-Real-IP (got "${value}")`,
    );
  }
  return header as ClientAddressHeader;
}

export const SESSION_MAX_AGE_MS = 12 * 60 * 60 * 1000;

export { SANDBOX_DEFAULTS };

/** One line that names the variable and what is wrong; never echoes a secret's value. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}

const SECRET_MIN_LENGTH = 32;

function required(env: RawEnv, name: string, why: string): string {
  const value = text(env, name);
  if (!value) throw new ConfigError(name, `is required ${why}`);
  return value;
}

export interface RequestLimits {
  /** Sales one agent may submit a minute, form and API (SALES_PER_AGENT_PER_MINUTE). */
  salesPerMinute: number;
  /** Known-customer checks one agent may make an hour (KNOWN_CUSTOMER_CHECKS_PER_HOUR). */
  knownCustomerChecksPerHour: number;
  /**
   * Whose earlier sales the known-customer check looks at (KNOWN_CUSTOMER_SCOPE): `all` (default) warns of a sale
   * any agent made, `own` only of the agent's own, so the check tells an agent nothing of colleagues' customers.
   */
  knownCustomerScope: "all" | "own";
  /** History pages (and searches) one person may ask a minute (HISTORY_PAGES_PER_MINUTE). */
  historyPagesPerMinute: number;
  /** Rows one export may hold (EXPORT_MAX_ROWS) and seconds it may take (EXPORT_MAX_SECONDS). */
  exportMaxRows: number;
  exportMaxMs: number;
  /** Sales one integration may submit a minute through /api/v1, all its keys together (API_SALES_PER_MINUTE). */
  apiSalesPerMinute: number;
  /** Other /api/v1 requests (reads, the changes feed) one integration may make a minute (API_READS_PER_MINUTE). */
  apiReadsPerMinute: number;
}

function requestLimitsFrom(env: RawEnv): RequestLimits {
  const scope = text(env, "KNOWN_CUSTOMER_SCOPE") ?? "all";
  if (scope !== "all" && scope !== "own") {
    throw new ConfigError("KNOWN_CUSTOMER_SCOPE", `must be all or own (got "${scope}")`);
  }
  return {
    salesPerMinute: integer(env, "SALES_PER_AGENT_PER_MINUTE", 20, 1, 10_000),
    knownCustomerChecksPerHour: integer(env, "KNOWN_CUSTOMER_CHECKS_PER_HOUR", 60, 1, 100_000),
    knownCustomerScope: scope,
    historyPagesPerMinute: integer(env, "HISTORY_PAGES_PER_MINUTE", 60, 1, 10_000),
    exportMaxRows: integer(env, "EXPORT_MAX_ROWS", 200_000, 1, 10_000_000),
    exportMaxMs: integer(env, "EXPORT_MAX_SECONDS", 600, 1, 3_600) * 1_000,
    apiSalesPerMinute: integer(env, "API_SALES_PER_MINUTE", 120, 1, 100_000),
    apiReadsPerMinute: integer(env, "API_READS_PER_MINUTE", 600, 1, 1_000_000),
  };
}

function integer(env: RawEnv, name: string, fallback: number, min: number, max: number): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `must be a whole number from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

function httpUrl(env: RawEnv, name: string): string | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${value}")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(name, `must use http or https (got "${url.protocol}")`);
  }
  if (url.username || url.password) throw new ConfigError(name, "must not carry credentials");
  if (url.search || url.hash) throw new ConfigError(name, "must not have a query or fragment");
  return url.href.replace(/\/+$/, "");
}

function urlPath(env: RawEnv, name: string, fallback: string): string {
  const value = text(env, name) ?? fallback;
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(value)) {
    throw new ConfigError(name, `must be a path starting with "/" (got "${value}")`);
  }
  return value;
}

function secret(env: RawEnv, name: string, requiredWhy?: string): string | undefined {
  const value = requiredWhy ? required(env, name, requiredWhy) : text(env, name);
  if (value !== undefined && value.length < SECRET_MIN_LENGTH) {
    throw new ConfigError(name, `must be at least ${SECRET_MIN_LENGTH} characters long`);
  }
  return value;
}

/** Live mode: the client secret, customer data and portal tokens never cross a network in clear text. */
function requireHttps(name: string, url: string): void {
  if (!isHttpsOrLoopback(new URL(url))) {
    throw new ConfigError(name, `must use https outside this machine (got "${new URL(url).origin}")`);
  }
}

export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const name = "TRUSTED_PROXIES";
  if (value === undefined) return { kind: "none" };
  if (/^\d+$/.test(value)) {
    const count = Number(value);
    if (count < 1 || count > 10) throw new ConfigError(name, `a hop count is from 1 to 10 (got "${value}")`);
    return { kind: "hops", count };
  }
  const networks = value
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [address = "", prefixText, ...rest] = entry.split("/");
      const family = isIP(address);
      if (family === 0 || rest.length > 0 || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) {
        throw new ConfigError(name, `"${entry}" is not a hop count, an IP address or a CIDR network`);
      }
      const bits = family === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? bits : Number(prefixText);
      if (prefix > bits)
        throw new ConfigError(name, `"${entry}": an IPv${family} prefix is at most /${bits}`);
      return { address, prefix, family: family as 4 | 6 };
    });
  if (networks.length === 0) throw new ConfigError(name, "is empty; leave it unset to trust no proxy");
  return { kind: "networks", networks };
}

/** An IANA zone the runtime knows ("America/Sao_Paulo"), in its canonical spelling. */
export function parseTimeZone(value: string | undefined): string {
  if (value === undefined) return "America/Sao_Paulo";
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw new ConfigError(
      "APP_TIME_ZONE",
      `is not an IANA time zone such as America/Sao_Paulo (got "${value}")`,
    );
  }
}

const originSchema = z.url({ protocol: /^https?$/ });

export function parseOrigins(name: string, value: string | undefined): string[] {
  if (!value?.trim()) return [];
  return value
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      if (entry.includes("*")) throw new ConfigError(name, `wildcards are not allowed ("${entry}")`);
      if (!originSchema.safeParse(entry).success) {
        throw new ConfigError(name, `"${entry}" is not an http(s) origin`);
      }
      const url = new URL(entry);
      if (url.origin !== entry.replace(/\/$/, "").toLowerCase()) {
        throw new ConfigError(
          name,
          `"${entry}" must be scheme://host[:port] with no path (use "${url.origin}")`,
        );
      }
      return url.origin;
    });
}

function embedFrom(env: RawEnv, cwd: string, allowedOrigins: string[]): Config["embed"] {
  const portalsFile = text(env, "EMBED_PORTALS_FILE");
  try {
    const portals = parseEmbedPortals({
      portalsFile: portalsFile && resolve(cwd, portalsFile),
      ssoSecret: text(env, "EMBED_SSO_SECRET"),
      ssoEmailDomains: text(env, "EMBED_SSO_EMAIL_DOMAINS"),
      allowedOrigins,
    });
    return { allowedOrigins, portals };
  } catch (error) {
    if (error instanceof PortalConfigError) throw new ConfigError(error.variable, error.message);
    throw error;
  }
}

function plansFrom(env: RawEnv, mode: Config["mode"], cwd: string): Plan[] | null {
  const file = text(env, "PLANS_FILE") ?? (mode === "sandbox" ? SANDBOX_DEFAULTS.plansFile : undefined);
  if (!file) return null;
  try {
    return readPlanCatalogue(resolve(cwd, file));
  } catch (error) {
    if (error instanceof PlanCatalogueError) throw new ConfigError("PLANS_FILE", error.message);
    throw error;
  }
}

/** Who may sign in, and how: at least one way must be left once passwords are off. */
function signInFrom(
  env: RawEnv,
  embed: Config["embed"],
  cwd: string,
): Pick<Config, "oidc" | "passwordSignIn"> {
  try {
    const oidc = parseOidc(env, cwd);
    // The authorization code and the client secret cross this URL: never in clear text off this machine.
    if (oidc) requireHttps("OIDC_ISSUER", oidc.issuer);
    const passwordSignIn = parseSwitch(env, "PASSWORD_SIGN_IN", true);
    if (!passwordSignIn && !oidc && embed.portals.length === 0) {
      throw new ConfigError(
        "PASSWORD_SIGN_IN",
        "is off and nothing else signs agents in (set OIDC_ISSUER, or EMBED_PORTALS_FILE for portal sign-in)",
      );
    }
    return { oidc, passwordSignIn };
  } catch (error) {
    if (error instanceof OidcConfigError) throw new ConfigError(error.variable, error.message);
    throw error;
  }
}

function publicUrlFrom(
  env: RawEnv,
  app: { mode: Config["mode"]; port: number; embedded: boolean; oidc: boolean },
): string {
  // Live, the app is behind a real name (and TLS): Auth.js and the session cookies must know it, not guess it.
  if (app.mode === "live") required(env, "AUTH_URL", "when PARTNER_API_BASE_URL is set");
  // The IdP only sends agents back to the redirect URI registered with it: Auth.js builds it from AUTH_URL, never
  // from a request's Host header.
  if (app.oidc) required(env, "AUTH_URL", "when OIDC_ISSUER is set (the redirect URI registered at the IdP)");
  const publicUrl = httpUrl(env, "AUTH_URL") ?? `http://localhost:${app.port}`;
  // Live, agents type passwords and customers' data into it; inside a portal the session cookie must be Secure,
  // and browsers drop Secure cookies set over plain http (loopback aside): every sign-in would silently fail.
  // With OIDC, the IdP's authorization codes arrive at it.
  if (app.mode === "live" || app.embedded || app.oidc) requireHttps("AUTH_URL", publicUrl);
  return publicUrl;
}

/**
 * Five years by default: what Brazilian law gives a consumer to claim for a faulty service (CDC art. 27) and the
 * tax authority to review a sale (CTN art. 173), the purposes the data is kept for after the sale (LGPD art. 16 I).
 * "0" turns retention off explicitly; the server says so at every start.
 */
const RETENTION_DAYS_DEFAULT = 1_825;

function webhooksFrom(env: RawEnv, mode: Config["mode"]): WebhookConfig {
  const listed = (text(env, "WEBHOOK_ALLOWED_NETWORKS") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const cidr of listed) {
    const [address, prefix, ...rest] = cidr.split("/");
    const family = isIP(address ?? "");
    const bits = Number(prefix);
    if (!family || rest.length > 0 || !/^\d{1,3}$/.test(prefix ?? "") || bits > (family === 4 ? 32 : 128)) {
      throw new ConfigError(
        "WEBHOOK_ALLOWED_NETWORKS",
        `lists networks as an address and its prefix length, comma-separated, like 10.20.0.0/16, fd12:3456::/32 ` +
          `(got "${cidr}")`,
      );
    }
  }
  return {
    allowedNetworks: mode === "sandbox" ? [...listed, "127.0.0.0/8", "::1/128"] : listed,
    timeoutMs: integer(env, "WEBHOOK_TIMEOUT_SECONDS", 10, 1, 60) * 1_000,
    allowHttp: mode === "sandbox",
  };
}

function retentionDaysFrom(env: RawEnv): number | null {
  const days = integer(env, "CUSTOMER_DATA_RETENTION_DAYS", RETENTION_DAYS_DEFAULT, 0, 36_500);
  return days === 0 ? null : days;
}

export function parseConfig(env: RawEnv, cwd: string = process.cwd()): Config {
  const liveBaseUrl = httpUrl(env, "PARTNER_API_BASE_URL");
  const mode = liveBaseUrl ? "live" : "sandbox";
  const sandboxPort = integer(env, "SANDBOX_PORT", SANDBOX_DEFAULTS.port, 1, 65535);
  const liveOnly = "when PARTNER_API_BASE_URL is set";

  if (mode === "live") requireHttps("PARTNER_API_BASE_URL", liveBaseUrl!);
  const port = integer(env, "PORT", 3000, 1, 65535);
  const allowedOrigins = parseOrigins("EMBED_ALLOWED_ORIGINS", text(env, "EMBED_ALLOWED_ORIGINS"));
  if (mode === "live") for (const origin of allowedOrigins) requireHttps("EMBED_ALLOWED_ORIGINS", origin);

  const embed = embedFrom(env, cwd, allowedOrigins);
  const signIn = signInFrom(env, embed, cwd);

  const databaseUrl = text(env, "DATABASE_URL");
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError("DATABASE_URL", 'must be a PostgreSQL URL starting with "postgres://"');
  }
  const databaseMigrationUrl = text(env, "DATABASE_MIGRATION_URL");
  if (databaseMigrationUrl && !databaseUrl) {
    throw new ConfigError(
      "DATABASE_MIGRATION_URL",
      "is set but DATABASE_URL is not (it migrates that database)",
    );
  }
  if (databaseMigrationUrl && !/^postgres(ql)?:\/\//.test(databaseMigrationUrl)) {
    throw new ConfigError("DATABASE_MIGRATION_URL", 'must be a PostgreSQL URL starting with "postgres://"');
  }
  if (mode === "live") {
    for (const [name, url] of [
      ["DATABASE_URL", databaseUrl],
      ["DATABASE_MIGRATION_URL", databaseMigrationUrl],
    ] as const) {
      const problem = url && databaseTlsProblem(url, env);
      if (problem) throw new ConfigError(name, problem);
    }
  }

  return {
    mode,
    provider: {
      baseUrl: liveBaseUrl ?? `http://127.0.0.1:${sandboxPort}`,
      clientId:
        mode === "live"
          ? required(env, "PARTNER_CLIENT_ID", liveOnly)
          : (text(env, "PARTNER_CLIENT_ID") ?? text(env, "SANDBOX_CLIENT_ID") ?? SANDBOX_DEFAULTS.clientId),
      clientSecret:
        mode === "live"
          ? required(env, "PARTNER_CLIENT_SECRET", liveOnly)
          : (text(env, "PARTNER_CLIENT_SECRET") ??
            text(env, "SANDBOX_CLIENT_SECRET") ??
            SANDBOX_DEFAULTS.clientSecret),
      tokenPath: urlPath(env, "PARTNER_TOKEN_PATH", "/core/sso/connect/token"),
      salePath: urlPath(env, "PARTNER_SALE_PATH", "/core/financeiro/partnersale"),
      partnerSource: text(env, "PARTNER_SOURCE"),
      timeoutMs: integer(env, "PARTNER_API_TIMEOUT_MS", 15_000, 100, 300_000),
    },
    plans: plansFrom(env, mode, cwd),
    databaseUrl,
    databaseMigrationUrl,
    dataDir: resolve(cwd, text(env, "DATA_DIR") ?? ".data"),
    authSecret: secret(env, "AUTH_SECRET", mode === "live" ? liveOnly : undefined),
    publicUrlConfigured: httpUrl(env, "AUTH_URL") !== undefined,
    publicUrl: publicUrlFrom(env, {
      mode,
      port,
      embedded: allowedOrigins.length > 0,
      oidc: signIn.oidc !== null,
    }),
    sessions: {
      idleMs: integer(env, "SESSION_IDLE_MINUTES", 60, 1, 720) * 60_000,
      absoluteMs: SESSION_MAX_AGE_MS,
    },
    trustedProxies: parseTrustedProxies(text(env, "TRUSTED_PROXIES")),
    clientAddressHeader: parseClientAddressHeader(text(env, "TRUSTED_PROXY_HEADER")),
    metricsToken: secret(env, "METRICS_TOKEN"),
    embed,
    ...signIn,
    passwordSecondFactor: secondFactorPolicyFrom(env, mode),
    timeZone: parseTimeZone(text(env, "APP_TIME_ZONE")),
    customerDataRetentionDays: retentionDaysFrom(env),
    limits: requestLimitsFrom(env),
    drainDelayMs: integer(env, "DRAIN_DELAY_SECONDS", 0, 0, 120) * 1_000,
    webhooks: webhooksFrom(env, mode),
    port,
    sandboxPort,
    logFile: text(env, "LOG_FILE") ? resolve(cwd, text(env, "LOG_FILE")!) : undefined,
  };
}
