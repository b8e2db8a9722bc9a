-- The dashboard counts each agent's sales per status over a period: with the agent and the status in the index it
-- already walks for that period, the counts are read from the index alone (an index-only scan, where the visibility
-- map is current) instead of from every sale's row. At a million sales, the 30 days' counts went from 46 ms to 16 ms
-- on PostgreSQL. The new index is built first, under its own name: writes to sales wait for the build (about a second
-- at a million sales), reads go on. Only the swap that follows takes the lock reads wait for, until the commit.
CREATE INDEX "sales_created_idx_0014" ON "sales" USING btree ("created_at","submission_id","agent_id","status");--> statement-breakpoint
DROP INDEX "sales_created_idx";--> statement-breakpoint
ALTER INDEX "sales_created_idx_0014" RENAME TO "sales_created_idx";
