import "server-only";
import { getConfig } from "@/lib/env";
import { openDatabase, type Database, type DatabaseHandle } from "./connection";

export type { Database } from "./connection";

const holder = globalThis as { __partnerSalesDatabase?: Promise<DatabaseHandle> };

/** The app's database, opened and migrated once per process. */
export async function getDb(): Promise<Database> {
  const { databaseUrl, dataDir } = getConfig();
  holder.__partnerSalesDatabase ??= openDatabase({
    databaseUrl,
    dataDir,
    role: "server",
    initdbInChildProcess: true,
  });
  try {
    return (await holder.__partnerSalesDatabase).db;
  } catch (error) {
    holder.__partnerSalesDatabase = undefined;
    throw error;
  }
}
