import "server-only";
import type pg from "pg";

/**
 * What the app's own PostgreSQL role needs, and no more (ASVS V13.2.2, V16.4.2): to read and write the ledger's
 * tables, to append to the audit trail and read it, and to rebuild the ledger's planner statistics after an erasure
 * (migration 0017's function). No ownership, so it can neither drop nor disable the trail's triggers; no UPDATE,
 * DELETE or TRUNCATE on the trail. Run by the schema's owner after each migration (it covers
 * tables a migration added), only when the app connects as another role (DATABASE_MIGRATION_URL is set). It may read
 * which migrations ran, so an instance or a CLI run without the owner's URL can tell the schema is current.
 */
export async function grantAppRole(owner: pg.ClientBase, appRole: string): Promise<void> {
  const role = `"${appRole.replace(/"/g, '""')}"`;
  await owner.query(`
    GRANT USAGE ON SCHEMA public TO ${role};
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role};
    REVOKE TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA public FROM ${role};
    REVOKE UPDATE, DELETE ON audit_events FROM ${role};
    GRANT EXECUTE ON FUNCTION analyze_sales() TO ${role};
    GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${role};
    GRANT USAGE ON SCHEMA drizzle TO ${role};
    GRANT SELECT ON drizzle.__drizzle_migrations TO ${role};
  `);
}

/** Whether `role` owns the audit trail (and so could drop or disable its triggers, or rewrite it). */
export async function ownsAuditTrail(client: pg.Pool | pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ owns: boolean }>(
    "select pg_has_role(current_user, tableowner, 'USAGE') as owns from pg_tables where schemaname = 'public' and tablename = 'audit_events'",
  );
  return rows[0]?.owns ?? false;
}
