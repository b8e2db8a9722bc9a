ALTER TYPE "public"."audit_action" ADD VALUE 'api_key.created';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'api_key.revoked';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'api_key.expiry_set';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'api_key.refused';--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"integration_id" uuid NOT NULL,
	"prefix" text NOT NULL,
	"secret_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "integrations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_integration_id_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."integrations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys" USING btree ("prefix");--> statement-breakpoint
CREATE INDEX "api_keys_integration_idx" ON "api_keys" USING btree ("integration_id");--> statement-breakpoint
CREATE UNIQUE INDEX "integrations_name_key" ON "integrations" USING btree ("name");