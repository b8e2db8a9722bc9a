import { channel } from "node:diagnostics_channel";

/**
 * What the database connection tells whoever listens (lib/metrics.ts subscribes), through a Node diagnostics
 * channel: publishing costs nothing without a subscriber, and the database layer (and the operator's tools that
 * open it) loads nothing of Prometheus.
 */

export interface DatabaseErrorMessage {
  /** The SQLSTATE the server answered, or undefined when none came back (the connection failed). */
  sqlState: string | undefined;
}

/** Each failed connect or query. */
export const databaseErrors = channel("partner-sales:database-error");

/** What the embedded database's upkeep did (lib/db/upkeep.ts): every query of the process waited that long. */
export type UpkeepTaskName = "vacuum" | "analyze" | "gin_clean_pending_list";

export interface UpkeepTaskMessage {
  task: UpkeepTaskName;
  seconds: number;
}

/** Each upkeep task, once done. */
export const upkeepTasks = channel("partner-sales:database-upkeep");

/**
 * Each request the app sends to its database: a query on PostgreSQL (BEGIN and COMMIT included), a call of the
 * app's into the embedded one (not those of its socket's clients, such as the agents CLI). Counted for
 * `partner_sales_db_round_trips_total`, which the benchmark divides by the sales it made.
 */
export const databaseRoundTrips = channel("partner-sales:database-round-trip");

export function noteRoundTrips(count: number): void {
  if (databaseRoundTrips.hasSubscribers) databaseRoundTrips.publish(count);
}
