-- A sale's outcome enqueues its webhook deliveries in the sale's own transaction (enqueue_webhook_event, 0020).
-- Each delivery row's two foreign keys ran a check query of their own there, half the cost of enqueueing with two
-- endpoints on the embedded database (bench:webhooks). They go: the function takes the event it has just inserted
-- and the endpoints it reads, events are never deleted, and removing an endpoint deletes its deliveries itself
-- (lib/db/queries/webhooks.ts, removeWebhookEndpoint). A delivery a sale wrote for it while the removal committed
-- is never claimed: the claim takes only deliveries whose endpoint exists and is enabled.
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_webhook_events_id_fk";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_webhook_endpoints_id_fk";
