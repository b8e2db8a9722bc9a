ALTER TABLE "sales" ALTER COLUMN "agent_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "integration_id" uuid;--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sales_integration_created_idx" ON "sales" USING btree ("integration_id","created_at","status") WHERE "sales"."integration_id" is not null;--> statement-breakpoint
CREATE INDEX "sales_updated_idx" ON "sales" USING btree ("updated_at","submission_id");--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_sold_by_someone" CHECK ("sales"."agent_id" is not null or "sales"."integration_id" is not null);