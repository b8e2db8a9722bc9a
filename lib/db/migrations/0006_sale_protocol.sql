-- Sales recorded before protocols existed get one here. The generator mirrors lib/sales/protocol.ts (nine random
-- Crockford base32 characters and a Damm check character over GF(32), x⁵ + x² + 1) and is dropped once used: new
-- rows get theirs from the app, which owns the format.
ALTER TABLE "sales" ADD COLUMN "protocol" text;--> statement-breakpoint
CREATE FUNCTION "backfill_sale_protocol"() RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  alphabet constant text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  interim integer := 0;
  symbol integer;
  code text := '';
BEGIN
  FOR position IN 1..9 LOOP
    symbol := floor(random() * 32)::integer;
    code := code || substr(alphabet, symbol + 1, 1);
    interim := interim << 1;
    IF interim & 32 <> 0 THEN interim := interim # 37; END IF;
    interim := interim # symbol;
  END LOOP;
  interim := interim << 1;
  IF interim & 32 <> 0 THEN interim := interim # 37; END IF;
  RETURN code || substr(alphabet, interim + 1, 1);
END
$$;--> statement-breakpoint
UPDATE "sales" SET "protocol" = "backfill_sale_protocol"() WHERE "protocol" IS NULL;--> statement-breakpoint
DROP FUNCTION "backfill_sale_protocol"();--> statement-breakpoint
ALTER TABLE "sales" ALTER COLUMN "protocol" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "sales_protocol_key" ON "sales" USING btree ("protocol");--> statement-breakpoint
CREATE INDEX "sales_customer_document_idx" ON "sales" USING btree (("request" ->> 'customerDocument'));
