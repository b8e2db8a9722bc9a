import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { openDatabase } from "../../lib/db/connection";

/** A database as the import talks to it: SQL text in, one round trip a call. */
export interface Connection {
  /** Statements separated by semicolons, in one round trip: the rows they changed, all together. */
  run(sql: string): Promise<number>;
  rows<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

export async function pgliteConnection(dataDir: string): Promise<Connection> {
  const handle = await openDatabase({ databaseUrl: undefined, dataDir, role: "tool" });
  if (handle.kind !== "pglite") {
    await handle.close();
    throw new Error(`The app still holds ${dataDir}: stop it first.`);
  }
  // Drizzle's PGlite database keeps its client; its exec runs several statements in one call into PGlite.
  const client = (handle.db as unknown as { $client: PGlite }).$client;
  return {
    run: async (sql) => (await client.exec(sql)).reduce((sum, result) => sum + (result.rowCount ?? 0), 0),
    rows: async <T>(sql: string) => (await client.query<T>(sql)).rows,
    close: () => handle.close(),
  };
}

export async function postgresConnection(url: string): Promise<Connection> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    run: async (sql) => {
      // Several statements in one simple query answer one result each.
      const results = (await client.query(sql)) as unknown as pg.QueryResult | pg.QueryResult[];
      return [results].flat().reduce((sum, result) => sum + (result.rowCount ?? 0), 0);
    },
    rows: async <T>(sql: string) => (await client.query(sql)).rows as T[],
    close: () => client.end(),
  };
}
