CREATE TABLE "sale_counts_zone" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"time_zone" text NOT NULL,
	CONSTRAINT "sale_counts_zone_singleton" CHECK ("sale_counts_zone"."singleton")
);
--> statement-breakpoint
CREATE TABLE "sale_day_counts" (
	"day" date NOT NULL,
	"status" "sale_status" NOT NULL,
	"sales" integer NOT NULL,
	CONSTRAINT "sale_day_counts_day_status_pk" PRIMARY KEY("day","status")
);
--> statement-breakpoint
DROP INDEX "sales_status_idx";--> statement-breakpoint
DROP INDEX "sales_agent_created_idx";--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "customer_name_folded" text GENERATED ALWAYS AS (sales_fold(request ->> 'customerName')) STORED;--> statement-breakpoint
CREATE INDEX "sales_status_created_idx" ON "sales" USING btree ("status","created_at","submission_id");--> statement-breakpoint
CREATE INDEX "sales_customer_phone_idx" ON "sales" USING btree (("request" ->> 'customerPhone'));--> statement-breakpoint
CREATE INDEX "sales_external_id_idx" ON "sales" USING btree (("request" ->> 'externalId'));--> statement-breakpoint
CREATE INDEX "sales_customer_name_trgm_idx" ON "sales" USING gin ("customer_name_folded" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "sales_customer_email_trgm_idx" ON "sales" USING gin (("request" ->> 'customerEmail') gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "sales_agent_created_idx" ON "sales" USING btree ("agent_id","created_at","submission_id","status");