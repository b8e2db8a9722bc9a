import type { SaleStatus } from "@/lib/db/schema";

/** The dashboard's periods: today, and the last 7 and 30 days (today included), in APP_TIME_ZONE's days. */
export const PERIODS = {
  today: { days: 1, label: "Hoje" },
  "7d": { days: 7, label: "Últimos 7 dias" },
  "30d": { days: 30, label: "Últimos 30 dias" },
} as const;

export type Period = keyof typeof PERIODS;

export function isPeriod(value: unknown): value is Period {
  return typeof value === "string" && Object.hasOwn(PERIODS, value);
}

/** The outcomes the dashboard sums, in the order it shows them. */
export const OUTCOMES = [
  "accepted",
  "rejected",
  "failed",
  "unknown",
] as const satisfies readonly SaleStatus[];

export type StatusCounts = Record<SaleStatus, number>;

export const emptyCounts = (): StatusCounts => ({
  pending: 0,
  accepted: 0,
  rejected: 0,
  failed: 0,
  unknown: 0,
});

/** `YYYY-MM-DD` of the `days` calendar days ending with `lastDay`, oldest first. */
export function daysEndingOn(lastDay: string, days: number): string[] {
  const [year, month, day] = lastDay.split("-").map(Number) as [number, number, number];
  return Array.from({ length: days }, (_, index) =>
    new Date(Date.UTC(year, month - 1, day - (days - 1 - index))).toISOString().slice(0, 10),
  );
}

export interface PeriodSummary {
  period: Period;
  /** First and last day, `YYYY-MM-DD`. */
  from: string;
  to: string;
  counts: StatusCounts;
  total: number;
  /** Accepted ÷ every sale with an outcome (those still being sent left out); null without any. */
  acceptanceRate: number | null;
}

export function total(counts: StatusCounts): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

export function acceptanceRate(counts: StatusCounts): number | null {
  const decided = total(counts) - counts.pending;
  return decided > 0 ? counts.accepted / decided : null;
}

/** The counts of each day, every day of `days` present (zero when nothing was sold). */
export function perDay(
  rows: readonly { day: string; status: SaleStatus; sales: number }[],
  days: readonly string[],
): Map<string, StatusCounts> {
  const byDay = new Map(days.map((day) => [day, emptyCounts()]));
  for (const row of rows) {
    const counts = byDay.get(row.day);
    if (counts) counts[row.status] += row.sales;
  }
  return byDay;
}

/** Today, 7 and 30 days, summed from the per-day counts of the last 30 days. */
export function summarizePeriods(byDay: Map<string, StatusCounts>, today: string): PeriodSummary[] {
  return (Object.keys(PERIODS) as Period[]).map((period) => {
    const days = daysEndingOn(today, PERIODS[period].days);
    const counts = emptyCounts();
    for (const day of days) {
      const of = byDay.get(day);
      if (of) for (const status of Object.keys(counts) as SaleStatus[]) counts[status] += of[status];
    }
    return {
      period,
      from: days[0]!,
      to: today,
      counts,
      total: total(counts),
      acceptanceRate: acceptanceRate(counts),
    };
  });
}
