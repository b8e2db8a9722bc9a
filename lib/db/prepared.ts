import "server-only";
import type { Database } from "./connection";
import { keepPlanOf } from "./pglite-plans";

// On globalThis, like the database handle (lib/db/index.ts): Next bundles the instrumentation hook and the routes
// separately, each with its own copy of this module.
const state = globalThis as { __partnerSalesStatements?: WeakMap<Database, Map<string, unknown>> };
const statements = (state.__partnerSalesStatements ??= new WeakMap());

/**
 * A statement on the hot path, built once per database handle and then only executed: Drizzle does not rebuild
 * its SQL text on every call. Drizzle sends it unnamed (an empty name is node-postgres's unnamed statement): named
 * ones break behind a transaction-mode pooler (PgBouncer) in front of PostgreSQL. On the embedded database its
 * SQL is marked to be kept prepared by a name of the connection's own (lib/db/pglite-plans.ts): build here only
 * statements that look rows up or write them by key, whose generic plan is as good as any.
 */
export function prepared<T>(
  db: Database,
  name: string,
  build: (db: Database, statementName: string) => T,
): T {
  let forDb = statements.get(db);
  if (!forDb) statements.set(db, (forDb = new Map()));
  let statement = forDb.get(name) as T | undefined;
  if (statement === undefined) {
    forDb.set(name, (statement = build(db, "")));
    const text = (statement as { getQuery?: () => { sql: string } }).getQuery?.().sql;
    if (text !== undefined) keepPlanOf(text);
  }
  return statement;
}
