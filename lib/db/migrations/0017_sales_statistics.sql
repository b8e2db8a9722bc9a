-- Planner statistics (pg_statistic, read as pg_stats) keep sampled values of the ledger's columns and of its
-- expression indexes, a customer's CPF, name, e-mail, phone and birth date among them, until the next ANALYZE.
-- After an erasure the app rebuilds them at once (lib/db/queries/customer-data.ts), but ANALYZE needs the table's
-- owner and the app's role owns nothing (lib/db/grants.ts): PostgreSQL would skip it with a mere warning. This
-- function runs that one ANALYZE as its owner, the schema's; only the roles granted it may call it.
CREATE FUNCTION "analyze_sales"() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
  ANALYZE public.sales;
END
$$;--> statement-breakpoint
REVOKE EXECUTE ON FUNCTION "analyze_sales"() FROM PUBLIC;
