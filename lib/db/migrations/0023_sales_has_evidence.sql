-- Whether a sale was claimed with an offer script's evidence, on the sale's own row. claimSubmission re-claims a
-- failed sale without evidence only when it has none: as a subquery on sale_evidence, a re-claim waiting on another
-- one's row lock re-read the row but not the evidence that one wrote (READ COMMITTED), and could send the sale
-- without the record that describes it. The existing records set it.
ALTER TABLE "sales" ADD COLUMN "has_evidence" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE "sales" SET "has_evidence" = true WHERE "submission_id" IN (SELECT "submission_id" FROM "sale_evidence");
