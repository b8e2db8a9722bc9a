-- A supervisor's settlement gets its own column, so outcome_detail keeps what the provider answered. Rows settled
-- before this wrote "confirmed-registered" or "confirmed-not-registered" over that answer; they are given back
-- what can be known of it. Only settling sets resolved_at, and only a `failed` row (settled "not registered") is
-- ever sent again, which clears outcome_detail: so every settled row but "confirmed-registered" was "not registered".
CREATE TYPE "public"."sale_resolution" AS ENUM('registered', 'not-registered');--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "resolution" "sale_resolution";--> statement-breakpoint
UPDATE "sales"
SET "resolution" = CASE WHEN "outcome_detail" = 'confirmed-registered' THEN 'registered' ELSE 'not-registered' END::"sale_resolution"
WHERE "resolved_at" IS NOT NULL;--> statement-breakpoint
-- The client (lib/partner-api/client.ts) records an unknown answer with an HTTP status as "server-error" from 500
-- on and as "malformed-answer" below; without a status it was a timeout, a lost connection or an interrupted
-- call, which the overwrite made impossible to tell apart: left null ("not recorded").
UPDATE "sales"
SET "outcome_detail" = CASE
  WHEN "upstream_status" >= 500 THEN 'server-error'
  WHEN "upstream_status" IS NOT NULL THEN 'malformed-answer'
END
WHERE "outcome_detail" IN ('confirmed-registered', 'confirmed-not-registered');--> statement-breakpoint
CREATE INDEX "sales_created_idx" ON "sales" USING btree ("created_at","submission_id");--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_resolution_when_resolved" CHECK (("sales"."resolution" is null) = ("sales"."resolved_at" is null));
