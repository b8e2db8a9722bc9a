-- sale_day_counts follows every sale as it is written, moves status or is removed, in the same transaction: the
-- history's counts and the dashboard read it instead of counting the ledger. The days are those of the time zone
-- in sale_counts_zone; the app recounts them when APP_TIME_ZONE changes (lib/db/queries/sale-day-counts.ts).
INSERT INTO "sale_counts_zone" ("time_zone") VALUES ('America/Sao_Paulo');--> statement-breakpoint
INSERT INTO "sale_day_counts" ("day", "status", "sales")
  SELECT ("created_at" AT TIME ZONE 'America/Sao_Paulo')::date, "status", count(*) FROM "sales" GROUP BY 1, 2;--> statement-breakpoint
CREATE FUNCTION "sale_day_counts_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  zone constant text := (SELECT "time_zone" FROM "sale_counts_zone");
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE "sale_day_counts" SET "sales" = "sales" - 1
      WHERE "day" = (OLD."created_at" AT TIME ZONE zone)::date AND "status" = OLD."status";
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO "sale_day_counts" ("day", "status", "sales")
      VALUES ((NEW."created_at" AT TIME ZONE zone)::date, NEW."status", 1)
      ON CONFLICT ("day", "status") DO UPDATE SET "sales" = "sale_day_counts"."sales" + 1;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "sale_day_counts_on_write" AFTER INSERT OR DELETE ON "sales"
  FOR EACH ROW EXECUTE FUNCTION "sale_day_counts_follow"();--> statement-breakpoint
CREATE TRIGGER "sale_day_counts_on_move" AFTER UPDATE OF "status", "created_at" ON "sales"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR OLD."created_at" IS DISTINCT FROM NEW."created_at")
  EXECUTE FUNCTION "sale_day_counts_follow"();
