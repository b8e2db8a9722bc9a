CREATE TYPE "public"."webhook_delivery_state" AS ENUM('pending', 'delivered', 'dead');--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'webhook.added';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'webhook.disabled';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'webhook.enabled';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'webhook.secret_rotated';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'webhook.removed';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'webhook.replayed';--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"event_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"duration_ms" integer NOT NULL,
	"status_code" integer,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"event_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"order_key" uuid NOT NULL,
	"seq" bigint NOT NULL,
	"state" "webhook_delivery_state" DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"leased_by" text,
	"last_status" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "webhook_deliveries_event_id_endpoint_id_pk" PRIMARY KEY("event_id","endpoint_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"include_customer" boolean DEFAULT false NOT NULL,
	"secret_sealed" text NOT NULL,
	"previous_secret_sealed" text,
	"previous_secret_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"disabled_at" timestamp with time zone,
	"failing_since" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "webhook_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"submission_id" uuid,
	"snapshot" jsonb NOT NULL,
	"traceparent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sales" ADD COLUMN "traceparent" text;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_attempts_endpoint_idx" ON "webhook_attempts" USING btree ("endpoint_id","at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_order_idx" ON "webhook_deliveries" USING btree ("endpoint_id","order_key","seq") WHERE "webhook_deliveries"."state" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_seq_key" ON "webhook_events" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "webhook_events_created_idx" ON "webhook_events" USING btree ("created_at");--> statement-breakpoint
-- The webhooks' outbox (lib/webhooks): an event and one delivery per enabled endpoint that hears its type, written
-- in the transaction of the change that causes it, so that a crash between the change and its delivery loses
-- nothing. No endpoint hearing it, no event: the sale's path pays one probe of webhook_endpoints and nothing more.
CREATE FUNCTION "enqueue_webhook_event"(event_type text, sale uuid, order_key uuid, snapshot jsonb, trace text)
RETURNS uuid LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
  event_id uuid;
  event_seq bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "webhook_endpoints" WHERE "disabled_at" IS NULL AND event_type = ANY ("events")) THEN
    RETURN NULL;
  END IF;
  INSERT INTO "webhook_events" ("type", "submission_id", "snapshot", "traceparent")
    VALUES (event_type, sale, snapshot, trace)
    RETURNING "id", "seq" INTO event_id, event_seq;
  INSERT INTO "webhook_deliveries" ("event_id", "endpoint_id", "order_key", "seq")
    SELECT event_id, "id", order_key, event_seq FROM "webhook_endpoints"
    WHERE "disabled_at" IS NULL AND event_type = ANY ("events");
  RETURN event_id;
END
$$;--> statement-breakpoint
-- A sale's outcome (accepted, rejected, failed, unknown) and a supervisor's settlement, as of the change: the
-- delivery renders it, with the sale's ids and sellers, when it is sent.
CREATE FUNCTION "sales_webhook_events"() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
  IF NEW."resolution" IS NOT NULL AND OLD."resolution" IS NULL THEN
    PERFORM "enqueue_webhook_event"('sale.settled', NEW."submission_id", NEW."submission_id", jsonb_build_object(
      'status', NEW."status", 'resolution', NEW."resolution", 'resolvedBy', NEW."resolved_by",
      'resolvedAt', NEW."resolved_at", 'updatedAt', NEW."updated_at"), NEW."traceparent");
  ELSIF NEW."status" IS DISTINCT FROM OLD."status" AND NEW."status" <> 'pending' THEN
    PERFORM "enqueue_webhook_event"('sale.' || NEW."status", NEW."submission_id", NEW."submission_id",
      jsonb_build_object('status', NEW."status", 'upstreamStatus', NEW."upstream_status",
        'upstreamMessage', NEW."upstream_message", 'outcomeDetail', NEW."outcome_detail",
        'rejectedFields', NEW."rejected_fields", 'completedAt', NEW."completed_at", 'updatedAt', NEW."updated_at"),
      NEW."traceparent");
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "sales_webhook_events" AFTER UPDATE OF "status", "resolution" ON "sales"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status" OR OLD."resolution" IS DISTINCT FROM NEW."resolution")
  EXECUTE FUNCTION "sales_webhook_events"();
