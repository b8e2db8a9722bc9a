import "server-only";
import { apiKeyMatches, apiKeyPrefix, type ApiScope } from "@/lib/auth/api-keys";
import { getDb, type Database } from "@/lib/db";
import { recordAuditEvent } from "@/lib/db/queries/audit-events";
import { apiKeyDoor, findApiKey, touchApiKey, type ApiKeyRecord } from "@/lib/db/queries/api-keys";
import { errorBody, type ErrorCode } from "@/lib/errors";
import { errorResponse, noStoreJson } from "@/lib/http/json";
import { log } from "@/lib/log";
import { countApiKeyRefusal } from "@/lib/metrics";
import { securityEventOnce } from "@/lib/security-log";
import { spendLimit } from "@/lib/dal/limits";
import { limitedResponse } from "@/lib/http/limited";
import type { ApiCaller } from "@/lib/dal/api-caller";

export type ApiAuthentication = { ok: true; caller: ApiCaller } | { ok: false; response: Response };

const REALM = 'Bearer realm="partner-sales"';

/** Why a key was refused, for the log (the answer says only `api_key_invalid`, whatever it was). */
type KeyRefusal = "key_malformed" | "key_unknown" | "key_mismatch" | "key_revoked" | "key_expired";

function refusal(code: ErrorCode, challenge: string): { ok: false; response: Response } {
  const response = noStoreJson(code === "insufficient_scope" ? 403 : 401, errorBody(code));
  response.headers.set("WWW-Authenticate", challenge);
  return { ok: false, response };
}

/** The trail hears of refusals of real keys (revoked, expired, out of scope), once per key and reason a while. */
async function refused(
  db: Database,
  reason: KeyRefusal | "scope_missing",
  key: Pick<ApiKeyRecord, "integration" | "prefix"> | undefined,
  details: Record<string, string>,
  now = new Date(),
) {
  countApiKeyRefusal(reason);
  const door = key ? apiKeyDoor({ name: key.integration }) : null;
  // Per key and reason (and scope) for real keys; per reason alone for made-up ones, whose prefixes are the
  // caller's to vary: one line a while, however many it invents.
  const once = key ? `api-key:${reason}:${key.prefix}:${details.scope ?? ""}` : `api-key:${reason}`;
  const written = await securityEventOnce(
    once,
    "access.refused",
    { outcome: "failure", door, agentId: null, reason, details },
    now.getTime(),
  );
  // The trail too, as seldom: a system hammering with a revoked key must not flood it.
  if (
    written &&
    key &&
    (reason === "key_revoked" || reason === "key_expired" || reason === "scope_missing")
  ) {
    try {
      await recordAuditEvent(db, {
        action: "api_key.refused",
        actor: door!,
        door,
        reason,
        details,
      });
    } catch (error) {
      log.error("api_key.audit_failed", { error });
    }
  }
}

const scopeChallenge = (scope: ApiScope) =>
  refusal("insufficient_scope", `${REALM}, error="insufficient_scope", scope="${scope}"`);

/**
 * A scope a request needs beyond its endpoint's (a sale naming an agent needs `sales:on-behalf`): the same 403,
 * log line and trail entry as a missing endpoint scope. Null when the caller holds it.
 */
export async function requireScope(caller: ApiCaller, scope: ApiScope): Promise<Response | null> {
  if (caller.scopes.has(scope)) return null;
  try {
    await refused(
      await getDb(),
      "scope_missing",
      { integration: caller.integration, prefix: caller.prefix },
      {
        prefix: caller.prefix,
        scope,
      },
    );
  } catch (error) {
    log.error("api_key.refusal_log_failed", { error });
  }
  return scopeChallenge(scope).response;
}

/**
 * The one check of /api/v1: `Authorization: Bearer <key>`, a live key (known, not revoked, not expired) whose hash
 * matches, holding `scope`. Refusals: 401 with `WWW-Authenticate: Bearer` (RFC 6750: `invalid_token` for a key that
 * was presented), 403 `insufficient_scope` naming the scope. The log names the key by its prefix, never the key.
 */
export async function authenticateApiKey(
  db: Database,
  request: Request,
  scope: ApiScope,
  now = new Date(),
): Promise<ApiAuthentication> {
  const header = request.headers.get("authorization") ?? "";
  const [scheme, presented, ...rest] = header.trim().split(/\s+/);
  if (!header || scheme?.toLowerCase() !== "bearer" || !presented || rest.length > 0) {
    countApiKeyRefusal("key_missing");
    return refusal("api_key_required", REALM);
  }
  const invalid = () => refusal("api_key_invalid", `${REALM}, error="invalid_token"`);
  const prefix = apiKeyPrefix(presented);
  if (!prefix) {
    await refused(db, "key_malformed", undefined, {}, now);
    return invalid();
  }
  const key = await findApiKey(db, prefix);
  if (!key || !apiKeyMatches(presented, key.secretHash)) {
    await refused(db, key ? "key_mismatch" : "key_unknown", key, { prefix }, now);
    return invalid();
  }
  if (key.revokedAt) {
    await refused(db, "key_revoked", key, { prefix }, now);
    return invalid();
  }
  if (key.expiresAt && key.expiresAt <= now) {
    await refused(db, "key_expired", key, { prefix }, now);
    return invalid();
  }
  if (!key.scopes.includes(scope)) {
    await refused(db, "scope_missing", key, { prefix, scope }, now);
    return scopeChallenge(scope);
  }
  // "Last used" is worth a write once a minute, not once a request.
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= 60_000) {
    await touchApiKey(db, key.id, now);
  }
  return {
    ok: true,
    caller: {
      integrationId: key.integrationId,
      integration: key.integration,
      keyId: key.id,
      prefix: key.prefix,
      scopes: new Set(key.scopes),
      door: apiKeyDoor({ name: key.integration }),
    },
  };
}

/**
 * The door of every /api/v1 route: the key (authenticateApiKey, on the app's database), then the integration's
 * budget for `limit` (lib/dal/limits.ts: 429 with Retry-After). A failure of the check itself is a 503, never a way in.
 */
export async function authorizeApiRequest(
  request: Request,
  scope: ApiScope,
  limit: "sales" | "api_reads",
): Promise<ApiAuthentication> {
  try {
    const authenticated = await authenticateApiKey(await getDb(), request, scope);
    if (!authenticated.ok) return authenticated;
    const spent = await spendLimit(limit, authenticated.caller);
    return spent.ok ? authenticated : { ok: false, response: limitedResponse(spent) };
  } catch (error) {
    log.error("api_key.check_failed", { error });
    return { ok: false, response: errorResponse("service_unavailable") };
  }
}
