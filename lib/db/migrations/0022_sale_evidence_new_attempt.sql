-- A failed sale (nothing was sent) may be sent again, with what the agent fixed: its claim, in one transaction,
-- records that attempt's evidence in place of the last one (lib/db/queries/sale-evidence.ts), with a new
-- sale.evidence_recorded row in the audit trail. Only that transaction may: the one that has just moved the sale
-- back to pending (the sale's row version is its own). Erasure still only empties the recording id; nothing deletes.
CREATE OR REPLACE FUNCTION "sale_evidence_guard"() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW."recording_id" IS NULL
    AND (to_jsonb(NEW) - 'recording_id') = (to_jsonb(OLD) - 'recording_id')
    AND EXISTS (SELECT 1 FROM "sales" WHERE "submission_id" = NEW."submission_id"
      AND "personal_data_erased_at" IS NOT NULL) THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW."submission_id" = OLD."submission_id"
    AND EXISTS (SELECT 1 FROM "sales" WHERE "submission_id" = NEW."submission_id"
      AND "status" = 'pending' AND "attempts" > 1 AND "xmin" = pg_current_xact_id()::xid) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'sale_evidence is written with its claim: only erasure may empty recording_id'
    USING ERRCODE = 'insufficient_privilege';
END
$$;
