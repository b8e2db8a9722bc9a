import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeyMatches, apiKeyPrefix } from "@/lib/auth/api-keys";
import type { DatabaseHandle } from "@/lib/db/connection";
import { findApiKey } from "@/lib/db/queries/api-keys";
import { apiKeys, auditEvents } from "@/lib/db/schema";
import { runTool } from "@/test/cli";
import { testDatabases } from "@/test/databases";

const securityLines = (stderr: string) =>
  stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.category === "security");

const keyIn = (stdout: string) => /Key: (psk_\S+)/.exec(stdout)?.[1];

describe.each(testDatabases)("api-keys CLI on $name, while the app holds the database", ({ open }) => {
  let handle: DatabaseHandle & { databaseUrl?: string; dataDir: string };
  let env: Record<string, string>;
  const cli = (args: string[]) => runTool("api-keys", args, env);

  beforeAll(async () => {
    handle = await open();
    env = { DATA_DIR: handle.dataDir, DATABASE_URL: handle.databaseUrl ?? "" };
  });
  afterAll(() => handle.close());

  it("creates a key shown once, keeps only its hash, and names it by its prefix in the log and the trail", async () => {
    const created = await cli(["create", "--name", "crm-parceira", "--scopes", "sales:write,sales:read"]);
    expect(created.status).toBe(0);
    const key = keyIn(created.stdout)!;
    const prefix = apiKeyPrefix(key)!;
    expect(prefix).toMatch(/^psk_[a-z2-7]{8}$/);
    const stored = await findApiKey(handle.db, prefix);
    expect(stored).toMatchObject({ integration: "crm-parceira", scopes: ["sales:write", "sales:read"] });
    expect(stored!.secretHash).toBe(createHash("sha256").update(key).digest("hex"));
    const [row] = await handle.db.select().from(apiKeys).where(eq(apiKeys.prefix, prefix));
    expect(JSON.stringify(row)).not.toContain(key.slice(prefix.length + 1));
    expect(apiKeyMatches(key, stored!.secretHash)).toBe(true);
    expect(apiKeyMatches(`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`, stored!.secretHash)).toBe(
      false,
    );
    // The key is nowhere but in the answer the operator reads.
    expect(created.stderr).not.toContain(key);
    expect(securityLines(created.stderr)).toEqual([
      expect.objectContaining({ event: "api_key.created", door: "api-key:crm-parceira", prefix }),
    ]);
    const [audited] = await handle.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.action, "api_key.created"))
      .orderBy(auditEvents.seq);
    expect(audited).toMatchObject({ door: "cli", details: expect.objectContaining({ prefix }) });
    expect(JSON.stringify(audited)).not.toContain(key);

    const listed = await cli(["list"]);
    expect(listed.stdout).toMatch(
      new RegExp(`crm-parceira  ${prefix}  sales:write,sales:read  created \\S+  last used -  live`),
    );
    expect(listed.stdout).not.toContain(key);
  });

  it("rotates: a new key beside the old, which expires later; revoke stops one at once", async () => {
    const first = keyIn((await cli(["create", "--name", "discador", "--scopes", "sales:write"])).stdout)!;
    const rotated = await cli(["rotate", "--name", "discador", "--old-expires-in", "2h"]);
    expect(rotated.status).toBe(0);
    const second = keyIn(rotated.stdout)!;
    const [old, fresh] = [
      await findApiKey(handle.db, apiKeyPrefix(first)!),
      await findApiKey(handle.db, apiKeyPrefix(second)!),
    ];
    expect(fresh).toMatchObject({ scopes: ["sales:write"], expiresAt: null, revokedAt: null });
    const hours = (old!.expiresAt!.getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(1.9);
    expect(hours).toBeLessThanOrEqual(2);
    expect(securityLines(rotated.stderr).map((line) => line.event)).toEqual([
      "api_key.created",
      "api_key.expiry_set",
    ]);

    const revoked = await cli(["revoke", "--prefix", apiKeyPrefix(first)!, "--reason", "chamado 4521"]);
    expect(revoked.status).toBe(0);
    expect((await findApiKey(handle.db, apiKeyPrefix(first)!))!.revokedAt).not.toBeNull();
    expect((await cli(["revoke", "--prefix", apiKeyPrefix(first)!])).status).toBe(1);
    const all = await cli(["revoke", "--name", "discador"]);
    expect(all.stdout).toContain(apiKeyPrefix(second)!);
    expect(
      await handle.db
        .select()
        .from(apiKeys)
        .where(eq(apiKeys.prefix, apiKeyPrefix(second)!)),
    ).toEqual([expect.objectContaining({ revokedAt: expect.any(Date) })]);
  });

  it.each([
    [["create", "--name", "CRM", "--scopes", "sales:write"], /--name is 2 to 40 lower-case/],
    [["create", "--name", "crm", "--scopes", "sales:delete"], /Unknown scope sales:delete/],
    [["create", "--name", "crm", "--scopes", "sales:read-customer"], /give both/],
    [
      ["create", "--name", "crm", "--scopes", "sales:read", "--expires-in", "2 weeks"],
      /--expires-in is a duration/,
    ],
    [["revoke"], /Give --prefix \(one key\) or --name/],
  ])("refuses %j with a usage message", async (args, message) => {
    const refused = await cli(args);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(message);
  });

  it("rotates a key made to expire into one with the same lifetime; a refused rotation writes nothing", async () => {
    const made = keyIn(
      (await cli(["create", "--name", "portal", "--scopes", "plans:read", "--expires-in", "90d"])).stdout,
    )!;
    const refused = await cli(["rotate", "--name", "portal", "--old-expires-in", "2 weeks"]);
    expect(refused.status).toBe(2);
    const listed = (await cli(["list"])).stdout.split("\n").filter((line) => line.startsWith("portal "));
    expect(listed).toHaveLength(1);
    const rotated = await cli(["rotate", "--name", "portal"]);
    const fresh = await findApiKey(handle.db, apiKeyPrefix(keyIn(rotated.stdout)!)!);
    const days = (fresh!.expiresAt!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    expect((await findApiKey(handle.db, apiKeyPrefix(made)!))!.expiresAt!.getTime()).toBeLessThan(
      fresh!.expiresAt!.getTime(),
    );
  });

  it("refuses to rotate an integration without a live key", async () => {
    const refused = await cli(["rotate", "--name", "ninguem"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("ninguem has no live key to rotate");
  });
});
