-- Request budgets (lib/db/queries/request-budgets.ts) are counters of the last minute or hour, written on every
-- sale and most reads. Unlogged, a commit that touches only them writes no WAL and waits for no flush, and the
-- ledger's own commits do not carry their records. What that gives up: after a crash (not a clean stop) or a
-- failover to a replica, every budget starts again from zero. No guarantee rests on them: the ledger, sessions
-- and the audit trail stay logged.
ALTER TABLE "request_budgets" SET UNLOGGED;
