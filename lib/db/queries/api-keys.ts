import "server-only";
import { and, asc, eq, gt, isNull, lt, ne, or, sql } from "drizzle-orm";
import type { ApiScope, NewApiKey } from "@/lib/auth/api-keys";
import type { Database } from "../connection";
import { prepared } from "../prepared";
import { apiKeys, integrations, type ApiKey, type Integration } from "../schema";
import { recordAuditEvent, type AuditActor } from "./audit-events";

/** The door an integration's keys open, in the log and the audit trail. */
export const apiKeyDoor = (integration: Pick<Integration, "name">) => `api-key:${integration.name}`;

/** A key as the CLI lists it and the trail names it: never its hash. */
export type ApiKeyListing = Omit<ApiKey, "secretHash"> & { integration: string };

const listing = {
  id: apiKeys.id,
  integrationId: apiKeys.integrationId,
  integration: integrations.name,
  prefix: apiKeys.prefix,
  scopes: apiKeys.scopes,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
};

/**
 * A new key for the integration `name` (made on its first key), audited in the same transaction: no key exists that
 * the trail does not name.
 */
export async function createApiKey(
  db: Database,
  input: { name: string; key: NewApiKey; scopes: ApiScope[]; expiresAt: Date | null; actor: AuditActor },
): Promise<ApiKeyListing> {
  return db.transaction(async (tx) => {
    await tx
      .insert(integrations)
      .values({ name: input.name })
      .onConflictDoNothing({ target: integrations.name });
    // Held until commit: a rotation or a revocation of this integration waits for this key, and sees it.
    const [integration] = await tx
      .select()
      .from(integrations)
      .where(eq(integrations.name, input.name))
      .for("update");
    const [row] = await tx
      .insert(apiKeys)
      .values({
        integrationId: integration!.id,
        prefix: input.key.prefix,
        secretHash: input.key.secretHash,
        scopes: input.scopes,
        expiresAt: input.expiresAt,
      })
      .returning();
    const { secretHash: _, ...key } = row!;
    await recordAuditEvent(tx, {
      ...input.actor,
      action: "api_key.created",
      details: {
        door: apiKeyDoor(integration!),
        prefix: key.prefix,
        scopes: key.scopes,
        expiresAt: key.expiresAt?.toISOString() ?? null,
      },
    });
    return { ...key, integration: integration!.name };
  });
}

export async function listApiKeys(db: Database): Promise<ApiKeyListing[]> {
  return db
    .select(listing)
    .from(apiKeys)
    .innerJoin(integrations, eq(integrations.id, apiKeys.integrationId))
    .orderBy(asc(integrations.name), asc(apiKeys.createdAt));
}

/** Revokes the key with `prefix`, or every live key of the integration `name`; each audited. Returns those revoked. */
export async function revokeApiKeys(
  db: Database,
  target: { prefix: string } | { name: string },
  input: { now: Date; actor: AuditActor; reason?: string | null },
): Promise<ApiKeyListing[]> {
  return db.transaction(async (tx) => {
    const [integration] =
      "name" in target
        ? await tx.select().from(integrations).where(eq(integrations.name, target.name)).for("update")
        : [];
    if ("name" in target && !integration) return [];
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: input.now })
      .where(
        and(
          "prefix" in target ? eq(apiKeys.prefix, target.prefix) : eq(apiKeys.integrationId, integration!.id),
          isNull(apiKeys.revokedAt),
        ),
      )
      .returning();
    const names = new Map(
      (await tx.select().from(integrations)).map((each) => [each.id, each.name] as const),
    );
    const listings = revoked.map(({ secretHash: _, ...key }) => ({
      ...key,
      integration: names.get(key.integrationId)!,
    }));
    for (const key of listings) {
      await recordAuditEvent(tx, {
        ...input.actor,
        action: "api_key.revoked",
        reason: input.reason ?? null,
        details: { door: apiKeyDoor({ name: key.integration }), prefix: key.prefix },
      });
    }
    return listings;
  });
}

/**
 * Rotation, in one transaction under the integration's row lock (so it neither races a revocation nor another
 * rotation): a new key with the given scopes, or the newest live key's, and that key's lifetime unless one is given;
 * every other live key then expires at `oldExpiresAt` (unless sooner). Null when the integration has no live key.
 */
export async function rotateApiKey(
  db: Database,
  input: {
    name: string;
    key: NewApiKey;
    scopes: ApiScope[] | null;
    expiresAt: Date | null;
    oldExpiresAt: Date;
    now: Date;
    actor: AuditActor;
  },
): Promise<{ key: ApiKeyListing; expiring: ApiKeyListing[] } | null> {
  return db.transaction(async (tx) => {
    const [integration] = await tx
      .select()
      .from(integrations)
      .where(eq(integrations.name, input.name))
      .for("update");
    if (!integration) return null;
    const live = await tx
      .select()
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.integrationId, integration.id),
          isNull(apiKeys.revokedAt),
          or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, input.now)),
        ),
      )
      .orderBy(asc(apiKeys.createdAt));
    const newest = live.at(-1);
    if (!newest) return null;
    const lifetime = newest.expiresAt ? newest.expiresAt.getTime() - newest.createdAt.getTime() : null;
    const [row] = await tx
      .insert(apiKeys)
      .values({
        integrationId: integration.id,
        prefix: input.key.prefix,
        secretHash: input.key.secretHash,
        scopes: input.scopes ?? newest.scopes,
        expiresAt: input.expiresAt ?? (lifetime ? new Date(input.now.getTime() + lifetime) : null),
      })
      .returning();
    const door = apiKeyDoor(integration);
    await recordAuditEvent(tx, {
      ...input.actor,
      action: "api_key.created",
      details: { door, prefix: row!.prefix, scopes: row!.scopes, rotated: true },
    });
    const expiring = await tx
      .update(apiKeys)
      .set({ expiresAt: input.oldExpiresAt })
      .where(
        and(
          eq(apiKeys.integrationId, integration.id),
          ne(apiKeys.id, row!.id),
          isNull(apiKeys.revokedAt),
          or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, input.oldExpiresAt)),
        ),
      )
      .returning();
    for (const old of expiring) {
      await recordAuditEvent(tx, {
        ...input.actor,
        action: "api_key.expiry_set",
        details: { door, prefix: old.prefix, expiresAt: input.oldExpiresAt.toISOString() },
      });
    }
    const named = ({ secretHash: _, ...key }: ApiKey): ApiKeyListing => ({
      ...key,
      integration: integration.name,
    });
    return { key: named(row!), expiring: expiring.map(named) };
  });
}

/** What a request's key check reads: the key by its prefix, with its integration (one prepared statement). */
export interface ApiKeyRecord {
  id: string;
  prefix: string;
  secretHash: string;
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  integrationId: string;
  integration: string;
}

export async function findApiKey(db: Database, prefix: string): Promise<ApiKeyRecord | undefined> {
  const statement = prepared(db, "find_api_key", (db, statementName) =>
    db
      .select({
        id: apiKeys.id,
        prefix: apiKeys.prefix,
        secretHash: apiKeys.secretHash,
        scopes: apiKeys.scopes,
        expiresAt: apiKeys.expiresAt,
        revokedAt: apiKeys.revokedAt,
        lastUsedAt: apiKeys.lastUsedAt,
        integrationId: apiKeys.integrationId,
        integration: integrations.name,
      })
      .from(apiKeys)
      .innerJoin(integrations, eq(integrations.id, apiKeys.integrationId))
      .where(eq(apiKeys.prefix, sql.placeholder("prefix")))
      .limit(1)
      .prepare(statementName),
  );
  const [key] = await statement.execute({ prefix });
  return key;
}

/** Notes a key's use, at most once a minute (the CLI's "last used"). */
export async function touchApiKey(db: Database, id: string, now: Date): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(
      and(
        eq(apiKeys.id, id),
        or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(now.getTime() - 60_000))),
      ),
    );
}
