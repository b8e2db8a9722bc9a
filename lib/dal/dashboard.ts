import "server-only";
import { getDb } from "@/lib/db";
import { salesPerAgent, salesPerDay } from "@/lib/db/queries/dashboard";
import { countHistoryByStatus } from "@/lib/db/queries/sales-history";
import { isoDateIn } from "@/lib/format";
import {
  acceptanceRate,
  daysEndingOn,
  perDay,
  PERIODS,
  summarizePeriods,
  total,
  type Period,
  type PeriodSummary,
  type StatusCounts,
} from "@/lib/sales/dashboard";
import { appTimeZone } from "./sales";
import { logRefusedAccess, type SessionAgent } from "./session";

export interface AgentSummary {
  agentId: string;
  name: string;
  email: string;
  counts: StatusCounts;
  total: number;
  acceptanceRate: number | null;
}

export interface Dashboard {
  /** `YYYY-MM-DD` in APP_TIME_ZONE. */
  today: string;
  periods: PeriodSummary[];
  /** The last 30 days, oldest first. */
  days: { day: string; counts: StatusCounts }[];
  /** Every sale still to be confirmed, whenever it was made. */
  unknownToSettle: number;
  /** The period of the table per agent, and its rows, most sales first. */
  period: PeriodSummary;
  agents: AgentSummary[];
}

/** The supervisors' dashboard; null for anyone else. */
export async function readDashboard(
  agent: SessionAgent,
  period: Period,
  now = new Date(),
): Promise<Dashboard | null> {
  if (agent.role !== "supervisor") {
    await logRefusedAccess(agent, "supervisor_page", { page: "/dashboard" });
    return null;
  }
  const db = await getDb();
  const timeZone = appTimeZone();
  const today = isoDateIn(now, timeZone);
  const days = daysEndingOn(today, PERIODS["30d"].days);
  // Three independent reads: on PostgreSQL they run side by side on the pool's connections.
  const [dayRows, agentRows, everyone] = await Promise.all([
    salesPerDay(db, { from: days[0]!, timeZone }),
    salesPerAgent(db, { from: daysEndingOn(today, PERIODS[period].days)[0]!, timeZone }),
    countHistoryByStatus(db, { timeZone }),
  ]);
  const byDay = perDay(dayRows, days);
  const periods = summarizePeriods(byDay, today);
  const chosen = periods.find((summary) => summary.period === period)!;

  const agents: AgentSummary[] = agentRows.map((row) => ({
    agentId: row.agentId,
    name: row.agentName,
    email: row.agentEmail,
    counts: row.counts,
    total: total(row.counts),
    acceptanceRate: acceptanceRate(row.counts),
  }));

  return {
    today,
    periods,
    days: days.map((day) => ({ day, counts: byDay.get(day)! })),
    unknownToSettle: everyone?.unknown ?? 0,
    period: chosen,
    agents: agents.sort((a, b) => b.total - a.total || a.name.localeCompare(b.name, "pt-BR")),
  };
}
