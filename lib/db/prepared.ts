import "server-only";
import type { Database } from "./connection";

const statements = new WeakMap<Database, Map<string, unknown>>();

/**
 * A statement on the hot path, built once per database handle and name and then only executed: Drizzle does not
 * rebuild the SQL text on every call, and PostgreSQL (or PGlite) parses and plans it once per connection.
 */
export function prepared<T>(db: Database, name: string, build: (db: Database) => T): T {
  let forDb = statements.get(db);
  if (!forDb) statements.set(db, (forDb = new Map()));
  let statement = forDb.get(name) as T | undefined;
  if (statement === undefined) forDb.set(name, (statement = build(db)));
  return statement;
}
