-- The database and its two roles (README, "Running in production"). Run once, as a PostgreSQL superuser:
--
--   psql -v owner_password="$OWNER_PASSWORD" -v app_password="$APP_PASSWORD" -f deploy/postgres/roles.sql
--
-- partner_sales_owner owns the schema: the instances migrate as it (DATABASE_MIGRATION_URL) on a connection they
-- close at once, and it grants partner_sales_app what the app needs and nothing more (lib/db/grants.ts): read and
-- write the ledger's tables; append to the audit trail and read it, with no UPDATE, DELETE, TRUNCATE or TRIGGER on
-- it, and no ownership, so the app's role can neither rewrite the trail nor disable its triggers (DATABASE_URL).
-- Other names: -v owner_role=… -v app_role=… -v database=….

\set ON_ERROR_STOP on
\if :{?owner_role}
\else
  \set owner_role partner_sales_owner
\endif
\if :{?app_role}
\else
  \set app_role partner_sales_app
\endif
\if :{?database}
\else
  \set database partner_sales
\endif

CREATE ROLE :"owner_role" LOGIN PASSWORD :'owner_password';
CREATE ROLE :"app_role" LOGIN PASSWORD :'app_password';
CREATE DATABASE :"database" OWNER :"owner_role" ENCODING 'UTF8';
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"database" TO :"app_role";

\connect :"database"
-- Only the owner creates objects here; the app's role gets its table privileges from the owner's migrations.
ALTER SCHEMA public OWNER TO :"owner_role";
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app_role";
