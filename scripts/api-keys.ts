import { parseArgs } from "node:util";
import {
  API_SCOPES,
  generateApiKey,
  INTEGRATION_NAME,
  isApiScope,
  type ApiScope,
} from "../lib/auth/api-keys";
import {
  apiKeyDoor,
  createApiKey,
  listApiKeys,
  revokeApiKeys,
  rotateApiKey,
  type ApiKeyListing,
} from "../lib/db/queries/api-keys";
import {
  cliSecurityEvent,
  CommandError,
  duration,
  optionalReason,
  runCli,
  UsageError,
  type CliContext,
} from "./cli";

const USAGE = `Manage the API keys of the partner's systems (CRM, dialer, portal backend) for /api/v1.

  npm run api-keys -- create --name NAME --scopes S1,S2 [--expires-in 90d]
  npm run api-keys -- list
  npm run api-keys -- rotate --name NAME [--old-expires-in 24h] [--scopes S1,S2] [--expires-in 90d]
  npm run api-keys -- revoke (--prefix psk_xxxxxxxx | --name NAME) [--reason R]

Scopes: ${API_SCOPES.join(", ")}.
A key belongs to an integration (NAME: lower case letters, digits, - and _), the door api-key:NAME in the security
log and the audit trail; the sales its keys make are the integration's. The key is printed once: only its hash is
kept, and its prefix (psk_ and 8 characters) names it in lists and logs. rotate makes a new key with the newest
live key's scopes and lifetime (or --scopes, --expires-in) and sets the others to expire (default in 24 hours), so the partner's system can
move to the new one without a gap; revoke stops a key at once. Durations: 30m, 24h, 90d.
Works while the app runs: with the embedded database it goes through the app's socket in DATA_DIR.`;

function requireName(value: string | undefined): string {
  if (!value) throw new UsageError("--name is required.");
  if (!INTEGRATION_NAME.test(value)) {
    throw new UsageError(
      `--name is 2 to 40 lower-case letters, digits, - or _, starting with a letter or digit (got "${value}").`,
    );
  }
  return value;
}

function requireScopes(value: string | undefined): ApiScope[] {
  if (!value)
    throw new UsageError(`--scopes is required: a comma-separated list of ${API_SCOPES.join(", ")}.`);
  const scopes = [...new Set(value.split(",").map((scope) => scope.trim()))].filter(Boolean);
  const unknown = scopes.filter((scope) => !isApiScope(scope));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new UsageError(`Unknown scope ${unknown.join(", ")}: the scopes are ${API_SCOPES.join(", ")}.`);
  }
  if (scopes.includes("sales:read-customer") && !scopes.includes("sales:read")) {
    throw new UsageError("sales:read-customer adds customers' data to sales:read: give both.");
  }
  return scopes as ApiScope[];
}

const day = (date: Date | null) => (date ? date.toISOString().replace(/\.\d{3}Z$/, "Z") : "-");

function describe(key: ApiKeyListing, now: Date): string {
  const state = key.revokedAt
    ? `revoked ${day(key.revokedAt)}`
    : key.expiresAt && key.expiresAt <= now
      ? `expired ${day(key.expiresAt)}`
      : key.expiresAt
        ? `expires ${day(key.expiresAt)}`
        : "live";
  return [
    key.integration,
    key.prefix,
    key.scopes.join(","),
    `created ${day(key.createdAt)}`,
    `last used ${day(key.lastUsedAt)}`,
    state,
  ].join("  ");
}

function logKey(event: "api_key.created" | "api_key.revoked" | "api_key.expiry_set", key: ApiKeyListing) {
  cliSecurityEvent(event, {
    outcome: "success",
    door: apiKeyDoor({ name: key.integration }),
    agentId: null,
    details: {
      prefix: key.prefix,
      scopes: key.scopes.join(","),
      expiresAt: key.expiresAt?.toISOString() ?? null,
    },
  });
}

const shownOnce = (key: string) =>
  `\nKey: ${key}\nIt is shown this once: give it to the partner's system now (Authorization: Bearer <key>).`;

async function run(command: string, args: string[], { db, operator }: CliContext): Promise<string> {
  const now = new Date();
  switch (command) {
    case "create": {
      const { values } = parseArgs({
        args,
        options: { name: { type: "string" }, scopes: { type: "string" }, "expires-in": { type: "string" } },
      });
      const name = requireName(values.name);
      const scopes = requireScopes(values.scopes);
      const expiresIn = values["expires-in"];
      const expiresAt = expiresIn ? new Date(now.getTime() + duration("--expires-in", expiresIn)) : null;
      const made = generateApiKey();
      const key = await createApiKey(await db(), { name, key: made, scopes, expiresAt, actor: operator });
      logKey("api_key.created", key);
      return `Created ${key.prefix} for ${apiKeyDoor({ name: key.integration })} (${scopes.join(", ")}).${shownOnce(made.key)}`;
    }
    case "list": {
      parseArgs({ args, options: {} });
      const keys = await listApiKeys(await db());
      return keys.length === 0 ? "No API keys." : keys.map((key) => describe(key, now)).join("\n");
    }
    case "rotate": {
      const { values } = parseArgs({
        args,
        options: {
          name: { type: "string" },
          scopes: { type: "string" },
          "expires-in": { type: "string" },
          "old-expires-in": { type: "string" },
        },
      });
      // Every option checked before anything is written: a refused command leaves no key behind.
      const name = requireName(values.name);
      const scopes = values.scopes ? requireScopes(values.scopes) : null;
      const expiresIn = values["expires-in"];
      const expiresAt = expiresIn ? new Date(now.getTime() + duration("--expires-in", expiresIn)) : null;
      const oldExpiresAt = new Date(
        now.getTime() + duration("--old-expires-in", values["old-expires-in"] ?? "24h"),
      );
      const made = generateApiKey();
      const rotated = await rotateApiKey(await db(), {
        name,
        key: made,
        scopes,
        expiresAt,
        oldExpiresAt,
        now,
        actor: operator,
      });
      if (!rotated) {
        throw new CommandError(`${name} has no live key to rotate: create one (npm run api-keys -- create).`);
      }
      const { key, expiring } = rotated;
      logKey("api_key.created", key);
      for (const old of expiring) logKey("api_key.expiry_set", old);
      const olds = expiring.map((old) => old.prefix).join(", ") || "none";
      return `Created ${key.prefix} for ${apiKeyDoor({ name: key.integration })} (${key.scopes.join(", ")}); the older keys (${olds}) work until ${day(oldExpiresAt)}.${shownOnce(made.key)}`;
    }
    case "revoke": {
      const { values } = parseArgs({
        args,
        options: { name: { type: "string" }, prefix: { type: "string" }, reason: { type: "string" } },
      });
      if ((values.name === undefined) === (values.prefix === undefined)) {
        throw new UsageError("Give --prefix (one key) or --name (every key of the integration).");
      }
      const reason = optionalReason(values.reason);
      const target =
        values.prefix !== undefined ? { prefix: values.prefix.trim() } : { name: requireName(values.name) };
      const revoked = await revokeApiKeys(await db(), target, { now, actor: operator, reason });
      if (revoked.length === 0) {
        throw new CommandError(`No live key ${"prefix" in target ? target.prefix : `of ${target.name}`}.`);
      }
      for (const key of revoked) logKey("api_key.revoked", key);
      return `Revoked ${revoked.map((key) => key.prefix).join(", ")}: refused from the next request on.`;
    }
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

await runCli(USAGE, run);
