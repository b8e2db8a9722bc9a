import "server-only";
import { sql } from "drizzle-orm";
import type { Database } from "../connection";

/** The cheapest round trip: whether the database answers at all. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}
