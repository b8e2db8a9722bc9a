import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

/** What the migrations create in PGlite (PostgreSQL ships these as contrib): every PGlite we open loads them. */
export const PGLITE_EXTENSIONS = { pg_trgm };
