CREATE TABLE "embed_token_uses" (
	"jti" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "external_subject" text;--> statement-breakpoint
CREATE UNIQUE INDEX "agents_external_subject_key" ON "agents" USING btree ("external_subject");