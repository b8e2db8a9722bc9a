ALTER TABLE "sales" ADD COLUMN "resolved_by" uuid;--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_resolved_by_agents_id_fk" FOREIGN KEY ("resolved_by") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;