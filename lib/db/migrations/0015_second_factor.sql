CREATE TYPE "public"."second_factor_kind" AS ENUM('totp', 'webauthn');--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'agent.password_changed';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'agent.second_factor_added';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'agent.second_factor_removed';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'agent.second_factor_reset';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'agent.recovery_codes_generated';--> statement-breakpoint
ALTER TYPE "public"."session_end_reason" ADD VALUE 'second_factor_reset' BEFORE 'upgrade';--> statement-breakpoint
CREATE TABLE "recovery_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "second_factors" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"kind" "second_factor_kind" NOT NULL,
	"label" text NOT NULL,
	"totp_secret" text,
	"totp_last_step" bigint,
	"credential_id" text,
	"public_key" text,
	"sign_count" bigint,
	"transports" text[],
	"challenge" text,
	"started_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"confirmed_at" timestamp with time zone,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "sign_in_challenges" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"agent_id" uuid NOT NULL,
	"credential" text NOT NULL,
	"verify_factor" boolean NOT NULL,
	"enrol_factor" boolean NOT NULL,
	"change_password" boolean NOT NULL,
	"second_factor_at" timestamp with time zone,
	"password_changed_at" timestamp with time zone,
	"webauthn_challenge" text,
	"return_to" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "password_change_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "recovery_codes" ADD CONSTRAINT "recovery_codes_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "second_factors" ADD CONSTRAINT "second_factors_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sign_in_challenges" ADD CONSTRAINT "sign_in_challenges_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "recovery_codes_agent_idx" ON "recovery_codes" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "second_factors_agent_idx" ON "second_factors" USING btree ("agent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "second_factors_credential_key" ON "second_factors" USING btree ("credential_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sign_in_challenges_token_key" ON "sign_in_challenges" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "sign_in_challenges_expires_idx" ON "sign_in_challenges" USING btree ("expires_at");