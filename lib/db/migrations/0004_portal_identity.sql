DROP INDEX "agents_external_subject_key";--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "external_issuer" text;--> statement-breakpoint
CREATE UNIQUE INDEX "agents_external_identity_key" ON "agents" USING btree ("external_issuer","external_subject");