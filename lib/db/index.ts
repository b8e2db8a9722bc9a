import "server-only";
import { getConfig } from "@/lib/env";
import { openDatabase, type Database, type DatabaseHandle } from "./connection";
import { countDaysIn } from "./queries/sale-day-counts";

export type { Database } from "./connection";

const holder = globalThis as {
  __partnerSalesDatabase?: Promise<DatabaseHandle>;
  __partnerSalesDbClosed?: boolean;
};

/** The app's database, opened and migrated once per process. */
export async function getDb(): Promise<Database> {
  // Closed at exit: a late caller must not open the database again behind the checkpoint.
  if (holder.__partnerSalesDbClosed) throw new Error("The database is closed: the server is stopping.");
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

/**
 * Closes the app's database once the server is done with it (lib/lifecycle.ts: closeAtExit). The embedded one
 * is checkpointed, its control file says "shut down", and the next start has no write-ahead log to replay.
 */
export async function closeDb(): Promise<void> {
  holder.__partnerSalesDbClosed = true;
  const opening = holder.__partnerSalesDatabase;
  holder.__partnerSalesDatabase = undefined;
  if (!opening) return;
  const handle = await opening.catch(() => undefined);
  await handle?.close();
}
