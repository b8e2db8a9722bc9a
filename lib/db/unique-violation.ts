import "server-only";

/**
 * Whether a unique index refused the row (SQLSTATE 23505): any of them, or the one named. node-postgres and PGlite
 * both put the server's fields on the error; Drizzle may wrap it as `cause`.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const fields = current as Error & { code?: unknown; constraint?: unknown };
    if (fields.code === "23505" && (constraint === undefined || fields.constraint === constraint))
      return true;
  }
  return false;
}

/** `write`'s answer, or undefined when a unique index refused it: someone else's row got there first. */
export async function unlessTaken<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}
