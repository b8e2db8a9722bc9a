import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { pg_visibility } from "@electric-sql/pglite/contrib/pg_visibility";

/**
 * What every PGlite we open loads (PostgreSQL ships these as contrib): pg_trgm, which the migrations create; and
 * pg_visibility, which the embedded database's upkeep reads (lib/db/upkeep.ts), created when PGlite is opened
 * because the migrations also run on PostgreSQL, where the app's role may not create extensions.
 */
export const PGLITE_EXTENSIONS = { pg_trgm, pg_visibility };
