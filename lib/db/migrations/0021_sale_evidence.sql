ALTER TYPE "public"."audit_action" ADD VALUE 'sale.evidence_recorded' BEFORE 'agent.changed';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'sale.dispute_pack_exported' BEFORE 'agent.changed';--> statement-breakpoint
CREATE TABLE "sale_evidence" (
	"submission_id" uuid PRIMARY KEY NOT NULL,
	"script_version" text NOT NULL,
	"script_hash" text NOT NULL,
	"script_text" text NOT NULL,
	"confirmations" jsonb NOT NULL,
	"recording_id" text,
	"recording_id_digest" text,
	"agent_id" uuid,
	"door" text NOT NULL,
	"recorded_at" timestamp with time zone NOT NULL,
	"evidence_hash" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sale_evidence" ADD CONSTRAINT "sale_evidence_submission_id_sales_submission_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."sales"("submission_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sale_evidence" ADD CONSTRAINT "sale_evidence_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_events_protocol_idx" ON "audit_events" USING btree ("protocol") WHERE "audit_events"."protocol" is not null;--> statement-breakpoint
-- The evidence is written once, with its sale. Only erasure touches it afterwards, and only to empty the recording
-- id (its digest stays); nothing deletes it. Its hash in the audit trail shows any other change (npm run evidence).
CREATE FUNCTION "sale_evidence_guard"() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW."recording_id" IS NULL
    AND (to_jsonb(NEW) - 'recording_id') = (to_jsonb(OLD) - 'recording_id')
    AND EXISTS (SELECT 1 FROM "sales" WHERE "submission_id" = NEW."submission_id"
      AND "personal_data_erased_at" IS NOT NULL) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'sale_evidence is written once: only erasure may empty recording_id'
    USING ERRCODE = 'insufficient_privilege';
END
$$;--> statement-breakpoint
CREATE TRIGGER "sale_evidence_guard" BEFORE UPDATE OR DELETE ON "sale_evidence"
  FOR EACH ROW EXECUTE FUNCTION "sale_evidence_guard"();
--> statement-breakpoint
-- Erasure rebuilds the planner's statistics (lib/db/queries/customer-data.ts): the recording ids' sampled values go
-- with the sales' own.
CREATE OR REPLACE FUNCTION "analyze_sales"() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
  ANALYZE public.sales;
  ANALYZE public.sale_evidence;
END
$$;
