import "server-only";
import type { Database } from "./connection";

// On globalThis, like the database handle (lib/db/index.ts): Next bundles the instrumentation hook and the routes
// separately, each with its own copy of this module.
const state = globalThis as {
  __partnerSalesStatements?: WeakMap<Database, Map<string, unknown>>;
  __partnerSalesSharedBackends?: WeakSet<Database>;
};
const statements = (state.__partnerSalesStatements ??= new WeakMap());
const sharedBackends = (state.__partnerSalesSharedBackends ??= new WeakSet());

/**
 * Marks a database reached through PGlite's socket: every connection there shares one backend, so a statement
 * prepared under a name by one connection already exists for the next, which node-postgres cannot know.
 */
export function markSharedBackend(db: Database): void {
  sharedBackends.add(db);
}

/**
 * A statement on the hot path, built once per database handle and then only executed: Drizzle does not rebuild
 * its SQL text on every call. On PostgreSQL it is also a named server-side statement, parsed and planned once
 * per connection; on a shared PGlite backend it stays unnamed (an empty name is node-postgres's unnamed one).
 */
export function prepared<T>(
  db: Database,
  name: string,
  build: (db: Database, statementName: string) => T,
): T {
  let forDb = statements.get(db);
  if (!forDb) statements.set(db, (forDb = new Map()));
  let statement = forDb.get(name) as T | undefined;
  if (statement === undefined) forDb.set(name, (statement = build(db, sharedBackends.has(db) ? "" : name)));
  return statement;
}
