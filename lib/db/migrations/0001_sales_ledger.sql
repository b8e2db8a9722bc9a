CREATE TYPE "public"."sale_status" AS ENUM('pending', 'accepted', 'rejected', 'failed', 'unknown');--> statement-breakpoint
CREATE TABLE "sales" (
	"submission_id" uuid PRIMARY KEY NOT NULL,
	"agent_id" uuid NOT NULL,
	"status" "sale_status" DEFAULT 'pending' NOT NULL,
	"request" jsonb NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL,
	"upstream_status" integer,
	"upstream_message" text,
	"outcome_detail" text,
	"rejected_fields" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sales_agent_created_idx" ON "sales" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "sales_status_idx" ON "sales" USING btree ("status");