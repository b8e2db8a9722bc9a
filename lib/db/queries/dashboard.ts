import "server-only";
import { count, eq, sql, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../connection";
import { agents, sales, type SaleStatus } from "../schema";
import { dayCountsAreIn, readDayCounts, type DayCount } from "./sale-day-counts";

const dayIn = (timeZone: string) =>
  sql<string>`to_char(${sales.createdAt} at time zone ${timeZone}, 'YYYY-MM-DD')`;
const since = (day: string, timeZone: string) =>
  sql`${sales.createdAt} >= (${day}::date::timestamp at time zone ${timeZone})`;

/**
 * Everyone's sales per day and status from `from` (a day in `timeZone`) on: the day counts when they count that
 * zone's days (the app keeps them so), else the ledger itself.
 */
export async function salesPerDay(
  db: Database,
  { from, timeZone }: { from: string; timeZone: string },
): Promise<DayCount[]> {
  if (await dayCountsAreIn(db, timeZone)) return readDayCounts(db, { from });
  return (
    db
      .select({ day: dayIn(timeZone), status: sales.status, sales: count() })
      .from(sales)
      .where(since(from, timeZone))
      // By position: each use of the zone is its own parameter, so the expressions would not match.
      .groupBy(sql`1`, sql`2`)
      .orderBy(sql`1`)
  );
}

export interface AgentStatusCount {
  agentId: string;
  agentName: string;
  agentEmail: string;
  status: SaleStatus;
  sales: number;
}

/**
 * Each agent's sales per status from `from` (a day in `timeZone`) on; agents without sales are not listed. Counted
 * from `sales_created_idx` alone, which holds each sale's agent and status (migration 0014).
 */
export function salesPerAgent(
  db: Database,
  { from, timeZone }: { from: string; timeZone: string },
): PromiseLike<AgentStatusCount[]> & SQLWrapper {
  const perAgent = db
    .select({ agentId: sales.agentId, status: sales.status, sales: count().as("sales") })
    .from(sales)
    .where(since(from, timeZone))
    .groupBy(sales.agentId, sales.status)
    .as("per_agent");
  return db
    .select({
      agentId: perAgent.agentId,
      agentName: agents.name,
      agentEmail: agents.email,
      status: perAgent.status,
      sales: perAgent.sales,
    })
    .from(perAgent)
    .innerJoin(agents, eq(agents.id, perAgent.agentId));
}
