CREATE TYPE "public"."identity_kind" AS ENUM('oidc', 'portal');--> statement-breakpoint
CREATE TYPE "public"."identity_link" AS ENUM('migration', 'sign_in', 'invitation', 'adoption', 'legacy_adoption', 'operator');--> statement-breakpoint
CREATE TYPE "public"."session_end_reason" AS ENUM('signed_out', 'signed_out_elsewhere', 'replaced', 'disabled', 'password_changed', 'ended_by_operator', 'identity_unlinked', 'role_changed', 'idle', 'absolute', 'door_closed', 'upgrade');--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'agent.created';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'agent.identity_linked';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'agent.identity_unlinked';--> statement-breakpoint
ALTER TYPE "public"."audit_action" ADD VALUE 'agent.role_changed';--> statement-breakpoint
CREATE TABLE "agent_identities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent_id" uuid NOT NULL,
	"kind" "identity_kind" NOT NULL,
	"issuer" text NOT NULL,
	"subject" text,
	"invited_until" timestamp with time zone,
	"role" "agent_role",
	"linked_by" "identity_link" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_sign_in_at" timestamp with time zone,
	CONSTRAINT "agent_identities_invitation" CHECK (("agent_identities"."subject" is null) = ("agent_identities"."invited_until" is not null))
);
--> statement-breakpoint
ALTER TABLE "agent_identities" ADD CONSTRAINT "agent_identities_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_identities_subject_key" ON "agent_identities" USING btree ("kind","issuer","subject");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_identities_agent_door_key" ON "agent_identities" USING btree ("agent_id","kind","issuer");--> statement-breakpoint
-- Every account's identities, from where they were kept: the IdP's in oidc_identities (with the role its claim last
-- wrote on the account), a portal's in the account's own columns ('' for one linked before tokens named an issuer).
-- Earlier versions linked an identity to an existing account by its e-mail; such links are recorded as `migration`,
-- for the operator to review (agents list, and a line at every start), and an identity that created its account as
-- `sign_in`: the IdP's was written in the same transaction as its account (same time), a portal's left the account
-- as it created it (never updated since). A legacy portal identity (no issuer) is always reviewed.
INSERT INTO "agent_identities" ("agent_id", "kind", "issuer", "subject", "role", "linked_by", "created_at", "last_sign_in_at")
  SELECT o."agent_id", 'oidc', o."issuer", o."subject", a."role",
    CASE WHEN o."created_at" = a."created_at" THEN 'sign_in' ELSE 'migration' END::"identity_link",
    o."created_at", o."last_sign_in_at"
  FROM "oidc_identities" o JOIN "agents" a ON a."id" = o."agent_id";--> statement-breakpoint
INSERT INTO "agent_identities" ("agent_id", "kind", "issuer", "subject", "role", "linked_by", "created_at")
  SELECT "id", 'portal', coalesce("external_issuer", ''), "external_subject", 'agent',
    CASE WHEN "external_issuer" IS NOT NULL AND "updated_at" = "created_at" AND "password_hash" IS NULL
      THEN 'sign_in' ELSE 'migration' END::"identity_link",
    "created_at"
  FROM "agents" WHERE "external_subject" IS NOT NULL;--> statement-breakpoint
-- That role was the IdP's door's: a password session of the same account gets the operator's role again (`npm run
-- agents -- set-role`), agent until then.
UPDATE "agents" SET "role" = 'agent', "updated_at" = now()
  WHERE "role" <> 'agent' AND "id" IN (SELECT "agent_id" FROM "agent_identities" WHERE "kind" = 'oidc');--> statement-breakpoint
DROP TABLE "oidc_identities" CASCADE;--> statement-breakpoint
DROP INDEX "agents_external_identity_key";--> statement-breakpoint
ALTER TABLE "agents" DROP COLUMN "external_issuer";--> statement-breakpoint
ALTER TABLE "agents" DROP COLUMN "external_subject";--> statement-breakpoint
-- Sessions keep their door and the role it gave. Those open now were opened under the old rules (a role another door
-- wrote, an account a portal took by its e-mail): they end, and everyone signs in once more.
ALTER TABLE "sessions" ADD COLUMN "door" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "identity_id" uuid;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "role" "agent_role";--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "end_reason" "session_end_reason";--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "credential" text;--> statement-breakpoint
UPDATE "sessions" SET "door" = "method"::text, "role" = 'agent',
  "end_reason" = CASE WHEN "ended_at" IS NULL THEN 'upgrade'::"session_end_reason" END,
  "ended_at" = coalesce("ended_at", now());--> statement-breakpoint
ALTER TABLE "sessions" ALTER COLUMN "door" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ALTER COLUMN "role" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_identity_id_agent_identities_id_fk" FOREIGN KEY ("identity_id") REFERENCES "public"."agent_identities"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_identity_idx" ON "sessions" USING btree ("identity_id");--> statement-breakpoint
-- The audit trail as a hash chain: each row's hash covers its content and the previous row's hash, in `seq` order.
-- The content is one JSON array, as lib/audit/chain.ts rebuilds it to verify (it never trusts this function).
ALTER TABLE "audit_events" ADD COLUMN "door" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "seq" bigint;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "prev_hash" text;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "hash" text;--> statement-breakpoint
CREATE FUNCTION "audit_event_hash"(
  previous text, seq bigint, at timestamptz, action "public"."audit_action", actor text, door text, agent_id uuid,
  protocol text, reason text, details jsonb
) RETURNS text LANGUAGE sql STABLE SET search_path = pg_catalog, public AS $$
  SELECT encode(sha256(convert_to(previous || jsonb_build_array(
    seq, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), action::text, actor, door, agent_id::text,
    protocol, reason, details
  )::text, 'UTF8')), 'hex')
$$;--> statement-breakpoint
-- One writer at a time appends (the advisory lock ends with its transaction), so each row follows the one committed
-- before it, whichever instance writes; its time is taken then, and the app cannot choose it. The search path is
-- fixed and the table named with its schema: a temporary table of the same name must not stand in for the trail.
CREATE FUNCTION "audit_events_chain"() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
  previous record;
BEGIN
  PERFORM pg_advisory_xact_lock(5788903452431364211);
  SELECT a."seq", a."hash" INTO previous FROM "public"."audit_events" a ORDER BY a."seq" DESC LIMIT 1;
  NEW."seq" := coalesce(previous."seq", 0) + 1;
  NEW."prev_hash" := coalesce(previous."hash", repeat('0', 64));
  NEW."at" := clock_timestamp();
  NEW."hash" := "public"."audit_event_hash"(NEW."prev_hash", NEW."seq", NEW."at", NEW."action", NEW."actor", NEW."door",
    NEW."agent_id", NEW."protocol", NEW."reason", NEW."details");
  RETURN NEW;
END
$$;--> statement-breakpoint
-- The rows written before the chain join it in the order they were written.
ALTER TABLE "audit_events" DISABLE TRIGGER "audit_events_no_change";--> statement-breakpoint
DO $$
DECLARE
  entry record;
  previous text := repeat('0', 64);
  position bigint := 0;
BEGIN
  FOR entry IN SELECT * FROM "audit_events" ORDER BY "id" LOOP
    position := position + 1;
    UPDATE "audit_events" SET "seq" = position, "prev_hash" = previous,
      "hash" = "audit_event_hash"(previous, position, entry."at", entry."action", entry."actor", entry."door", entry."agent_id",
        entry."protocol", entry."reason", entry."details")
      WHERE "id" = entry."id" RETURNING "hash" INTO previous;
  END LOOP;
END
$$;--> statement-breakpoint
ALTER TABLE "audit_events" ENABLE TRIGGER "audit_events_no_change";--> statement-breakpoint
ALTER TABLE "audit_events" ALTER COLUMN "seq" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_events" ALTER COLUMN "prev_hash" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_events" ALTER COLUMN "hash" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_seq_key" ON "audit_events" USING btree ("seq");--> statement-breakpoint
CREATE TRIGGER "audit_events_chain" BEFORE INSERT ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_chain"();--> statement-breakpoint
-- The migration's own changes to accounts and sessions, on the trail (the first row it chains itself).
INSERT INTO "audit_events" ("action", "actor", "door", "details")
  SELECT 'agent.changed', 'system', 'system', jsonb_build_object(
    'migration', '0013_identities_and_accountability',
    'identitiesToReview', (SELECT count(*) FROM "agent_identities" WHERE "linked_by" = 'migration'),
    'rolesMovedToTheIdp', (SELECT coalesce(jsonb_agg("agent_id"), '[]'::jsonb) FROM "agent_identities"
      WHERE "kind" = 'oidc' AND "role" = 'supervisor'),
    'sessionsEnded', (SELECT count(*) FROM "sessions" WHERE "end_reason" = 'upgrade'))
  WHERE EXISTS (SELECT 1 FROM "agents");
