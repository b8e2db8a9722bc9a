-- Whether a sale has an offer script's evidence, on the sale's own row. claimSubmission re-claims a failed sale
-- without evidence only when it has none: as a subquery on sale_evidence, a re-claim whose statement began before
-- another one's claim committed could re-read the row (READ COMMITTED) but not the evidence written with it, and
-- send the sale without the record that describes it. The claim that writes the evidence sets the flag; so does
-- every evidence row written, whoever writes it (an instance of the previous version during an upgrade). The
-- existing records set it here.
ALTER TABLE "sales" ADD COLUMN "has_evidence" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE "sales" SET "has_evidence" = true WHERE "submission_id" IN (SELECT "submission_id" FROM "sale_evidence");
--> statement-breakpoint
-- Touches neither status nor created_at, so the sales triggers (day counts, webhooks) do not fire; nor updated_at.
CREATE FUNCTION "sale_evidence_flags_sale"() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
  UPDATE "sales" SET "has_evidence" = true WHERE "submission_id" = NEW."submission_id" AND NOT "has_evidence";
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "sale_evidence_flags_sale" AFTER INSERT ON "sale_evidence"
  FOR EACH ROW EXECUTE FUNCTION "sale_evidence_flags_sale"();
