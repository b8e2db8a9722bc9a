import "server-only";
import { getConfig } from "@/lib/env";
import { openDatabase, type Database, type DatabaseHandle } from "./connection";
import { countDaysIn } from "./queries/sale-day-counts";

export type { Database } from "./connection";

const holder = globalThis as { __partnerSalesDatabase?: Promise<DatabaseHandle> };

/** The app's database, opened and migrated once per process. */
export async function getDb(): Promise<Database> {
  const { databaseUrl, databaseMigrationUrl, dataDir, timeZone } = getConfig();
  holder.__partnerSalesDatabase ??= openDatabase({
    databaseUrl,
    migrationUrl: databaseMigrationUrl,
    dataDir,
    role: "server",
    initdbInChildProcess: true,
  }).then(async (handle) => {
    // The counts' days are APP_TIME_ZONE's, whatever zone the last start had.
    await countDaysIn(handle.db, timeZone);
    return handle;
  });
  try {
    return (await holder.__partnerSalesDatabase).db;
  } catch (error) {
    holder.__partnerSalesDatabase = undefined;
    throw error;
  }
}
