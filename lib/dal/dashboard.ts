import "server-only";
import { getDb } from "@/lib/db";
import { salesPerAgent, salesPerDay, salesPerIntegration } from "@/lib/db/queries/dashboard";
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

/** An integration's sales (through its API key) in the period, alone or on an agent's behalf. */
export interface IntegrationSummary {
  integrationId: string;
  name: string;
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
  /** The period of the tables per agent and per integration, and their rows, most sales first. */
  period: PeriodSummary;
  agents: AgentSummary[];
  integrations: IntegrationSummary[];
}

const bySales = <Row extends { total: number; name: string }>(a: Row, b: Row) =>
  b.total - a.total || a.name.localeCompare(b.name, "pt-BR");

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
  const periodFrom = daysEndingOn(today, PERIODS[period].days)[0]!;
  // Independent reads: on PostgreSQL they run side by side on the pool's connections.
  const [dayRows, agentRows, integrationRows, everyone] = await Promise.all([
    salesPerDay(db, { from: days[0]!, timeZone }),
    salesPerAgent(db, { from: periodFrom, timeZone }),
    salesPerIntegration(db, { from: periodFrom, timeZone }),
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

  const integrations: IntegrationSummary[] = integrationRows.map((row) => ({
    integrationId: row.integrationId,
    name: row.integrationName,
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
    agents: agents.sort(bySales),
    integrations: integrations.sort(bySales),
  };
}
