/**
 * The rows of `db.execute(sql)`: PGlite's and node-postgres's results both carry `rows`, but Drizzle types the
 * union of the two drivers' results as unknown.
 */
export const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
