import "server-only";
import { lt } from "drizzle-orm";
import type { Database } from "../connection";
import { embedTokenUses } from "../schema";

/**
 * Spends a portal token's `jti` once: false when it was spent already. Spent ids are kept until the token
 * would have expired anyway (`expiresAt`), and forgotten after that.
 */
export async function spendTokenId(db: Database, key: string, expiresAt: Date, now: Date): Promise<boolean> {
  await db.delete(embedTokenUses).where(lt(embedTokenUses.expiresAt, now));
  const [fresh] = await db
    .insert(embedTokenUses)
    .values({ jti: key, expiresAt })
    .onConflictDoNothing()
    .returning();
  return Boolean(fresh);
}
