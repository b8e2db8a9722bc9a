import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { API_SCOPES, generateApiKey, type ApiScope } from "@/lib/auth/api-keys";
import type { DatabaseHandle } from "@/lib/db/connection";
import { createApiKey, findApiKey, revokeApiKeys } from "@/lib/db/queries/api-keys";
import { auditEvents } from "@/lib/db/schema";
import { log } from "@/lib/log";
import { metrics } from "@/lib/metrics";
import { testDatabases } from "@/test/databases";
import { authenticateApiKey } from "./api-key";

const OPERATOR = { actor: "cli:test", door: "cli" };
const bearer = (key: string) =>
  new Request("http://localhost/api/v1/sales", { headers: { authorization: `Bearer ${key}` } });

describe.each(testDatabases)("authenticateApiKey on $name", ({ open, name }) => {
  let handle: DatabaseHandle;
  // Refusals are logged once a while per process: each database's run lives an hour after the other's.
  const later = (date = new Date()) => new Date(date.getTime() + (name === "PGlite" ? 0 : 3_600_000));
  beforeAll(async () => {
    handle = await open();
  });
  afterAll(() => handle.close());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function newKey(name: string, scopes: ApiScope[], expiresAt: Date | null = null) {
    const made = generateApiKey();
    await createApiKey(handle.db, { name, key: made, scopes, expiresAt, actor: OPERATOR });
    return made;
  }

  it("lets a live key in with its scope, as its integration's door, and notes its use once a minute", async () => {
    const { key, prefix } = await newKey("crm", ["sales:write"]);
    const now = new Date();
    const passed = await authenticateApiKey(handle.db, bearer(key), "sales:write", now);
    expect(passed).toMatchObject({ ok: true, caller: { integration: "crm", prefix, door: "api-key:crm" } });
    expect((await findApiKey(handle.db, prefix))!.lastUsedAt).toEqual(now);
    await authenticateApiKey(handle.db, bearer(key), "sales:write", new Date(now.getTime() + 30_000));
    expect((await findApiKey(handle.db, prefix))!.lastUsedAt).toEqual(now);
  });

  it("answers 401 with WWW-Authenticate for no key, a malformed, unknown, altered, revoked or expired one", async () => {
    const warn = vi.spyOn(log, "warn").mockImplementation(() => {});
    const live = await newKey("discador", ["sales:write"]);
    const revoked = await newKey("discador", ["sales:write"]);
    await revokeApiKeys(handle.db, { prefix: revoked.prefix }, { now: new Date(), actor: OPERATOR });
    const expired = await newKey("discador", ["sales:write"], new Date(Date.now() - 1000));
    const unknown = generateApiKey();
    const cases: [Request, string, string | null][] = [
      [new Request("http://localhost/api/v1/sales"), "api_key_required", null],
      [
        new Request("http://localhost/x", { headers: { authorization: `Basic ${live.key}` } }),
        "api_key_required",
        null,
      ],
      [bearer("sk_live_123"), "api_key_invalid", "key_malformed"],
      [bearer(unknown.key), "api_key_invalid", "key_unknown"],
      [
        bearer(`${live.key.slice(0, -2)}${live.key.endsWith("xx") ? "yy" : "xx"}`),
        "api_key_invalid",
        "key_mismatch",
      ],
      [bearer(revoked.key), "api_key_invalid", "key_revoked"],
      [bearer(expired.key), "api_key_invalid", "key_expired"],
    ];
    for (const [request, code, reason] of cases) {
      const result = await authenticateApiKey(handle.db, request, "sales:write", later());
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.response.status).toBe(401);
      expect(await result.response.json()).toMatchObject({ error: code });
      expect(result.response.headers.get("www-authenticate")).toBe(
        reason ? 'Bearer realm="partner-sales", error="invalid_token"' : 'Bearer realm="partner-sales"',
      );
      if (reason) expect(warn).toHaveBeenCalledWith("access.refused", expect.objectContaining({ reason }));
    }
    // Every refusal is counted, however seldom the log tells of it.
    const counted = await metrics().registry.getSingleMetric("partner_sales_api_key_refusals_total")!.get();
    expect(counted.values.map((value) => value.labels.reason)).toEqual(
      expect.arrayContaining([
        "key_missing",
        "key_malformed",
        "key_unknown",
        "key_mismatch",
        "key_revoked",
        "key_expired",
      ]),
    );
    // The log names keys by their prefix, never the key.
    const logged = JSON.stringify(warn.mock.calls);
    for (const key of [live.key, revoked.key, expired.key, unknown.key]) expect(logged).not.toContain(key);
    expect(logged).toContain(revoked.prefix);
    // Refusals of the integration's real keys are on the trail too.
    const trail = await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "api_key.refused"));
    expect(trail.map((row) => row.reason).sort()).toEqual(
      expect.arrayContaining(["key_expired", "key_revoked"]),
    );
  });

  it("answers 403 insufficient_scope, naming the scope, for a live key without it", async () => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    const { key } = await newKey("portal-backend", ["sales:read"]);
    const result = await authenticateApiKey(handle.db, bearer(key), "sales:write");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.response.status).toBe(403);
    expect(await result.response.json()).toMatchObject({ error: "insufficient_scope" });
    expect(result.response.headers.get("www-authenticate")).toBe(
      'Bearer realm="partner-sales", error="insufficient_scope", scope="sales:write"',
    );
  });

  it.each(API_SCOPES)("lets a key with %s in for it, and for no other scope", async (scope) => {
    vi.spyOn(log, "warn").mockImplementation(() => {});
    const { key } = await newKey(`one-${scope.replace(/[^a-z]/g, "-")}`, [scope]);
    for (const asked of API_SCOPES) {
      const result = await authenticateApiKey(handle.db, bearer(key), asked, later());
      expect(result.ok, `${scope} asked for ${asked}`).toBe(asked === scope);
      if (!result.ok) expect(result.response.status).toBe(403);
    }
  });
});
