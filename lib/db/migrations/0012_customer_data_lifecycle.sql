CREATE TYPE "public"."audit_action" AS ENUM('customer.found', 'customer.exported', 'customer.erased', 'retention.erased', 'history.exported', 'sale.settled', 'agent.changed');--> statement-breakpoint
CREATE TYPE "public"."personal_data_erasure" AS ENUM('retention', 'request');--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"action" "audit_action" NOT NULL,
	"agent_id" uuid,
	"actor" text NOT NULL,
	"protocol" text,
	"reason" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_leases" (
	"job" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "personal_data_erased_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "personal_data_erasure" "personal_data_erasure";--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "erasure_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "customer_document_digest" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at");--> statement-breakpoint
CREATE INDEX "sales_retention_idx" ON "sales" USING btree ("created_at") WHERE "sales"."personal_data_erased_at" is null;--> statement-breakpoint
CREATE INDEX "sales_erasure_requested_idx" ON "sales" USING btree ("erasure_requested_at") WHERE "sales"."erasure_requested_at" is not null and "sales"."personal_data_erased_at" is null;--> statement-breakpoint
CREATE INDEX "sales_customer_document_digest_idx" ON "sales" USING btree ("customer_document_digest") WHERE "sales"."customer_document_digest" is not null;--> statement-breakpoint
ALTER TABLE "sales" ADD CONSTRAINT "sales_erasure_when_erased" CHECK (("sales"."personal_data_erasure" is null) = ("sales"."personal_data_erased_at" is null));--> statement-breakpoint
-- The audit trail is appended to, never changed: whoever can write to the database through the app cannot rewrite
-- what was done (a superuser can still drop the trigger; that is the operator's, and shows in the database's log).
CREATE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;--> statement-breakpoint
CREATE TRIGGER "audit_events_no_change" BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_events_append_only"();
