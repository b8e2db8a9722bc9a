import type { Database } from "@/lib/db/connection";
import { insertAgent } from "@/lib/db/queries/agents";
import { addWebhookEndpoint } from "@/lib/db/queries/webhooks";
import type { WebhookEventType } from "@/lib/db/schema";

/** The operator of the webhooks' tests, as the CLI names one. */
export const OPERATOR = { actor: "cli:test", door: "cli" };

/**
 * An endpoint as `webhooks add` makes one, without customer data. Its secret is sealed by `sealSecret`: a stand-in
 * by default, for tests that never sign.
 */
export const anEndpoint = (
  db: Database,
  url: string,
  events: readonly WebhookEventType[],
  sealSecret: (endpointId: string) => string = () => "sealed",
) => addWebhookEndpoint(db, { url, events, includeCustomer: false, sealSecret, actor: OPERATOR });

/** The supervisor who settles the tests' unknown sales: its id. */
export const aSupervisor = async (db: Database): Promise<string> =>
  (await insertAgent(db, { email: "s@example.com", name: "Sup", role: "supervisor", passwordHash: null })).id;
