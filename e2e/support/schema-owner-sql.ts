import { resolve } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "@/lib/db/connection";

/**
 * `tsx --conditions=react-server e2e/support/schema-owner-sql.ts "<statement>" …`: runs each statement, in order, on
 * the e2e app's embedded database (DATA_DIR, through the running app's socket) as the schema's owner. What a DBA
 * could do behind the app's back, and what verification must catch.
 */
// Absolute, as the app's configuration makes it: the socket's directory is the host, and a relative one reads as a name.
const dataDir = resolve(process.env.DATA_DIR!);
const handle = await openDatabase({ databaseUrl: undefined, dataDir, role: "tool" });
try {
  for (const statement of process.argv.slice(2)) await handle.db.execute(sql.raw(statement));
} finally {
  await handle.close();
}
