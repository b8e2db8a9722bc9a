import { describe, expect, it } from "vitest";
import { acceptanceRate, daysEndingOn, emptyCounts, perDay, summarizePeriods } from "./dashboard";

describe("the dashboard's sums", () => {
  it("counts back calendar days across months and leap days", () => {
    expect(daysEndingOn("2028-03-01", 3)).toEqual(["2028-02-28", "2028-02-29", "2028-03-01"]);
    expect(daysEndingOn("2026-01-01", 2)).toEqual(["2025-12-31", "2026-01-01"]);
    expect(daysEndingOn("2026-04-30", 30)[0]).toBe("2026-04-01");
  });

  it("sums today, 7 and 30 days from the per-day counts, leaving older days out", () => {
    const days = daysEndingOn("2026-04-30", 30);
    const byDay = perDay(
      [
        { day: "2026-04-30", status: "accepted", sales: 3 },
        { day: "2026-04-30", status: "unknown", sales: 1 },
        { day: "2026-04-24", status: "rejected", sales: 2 },
        { day: "2026-04-23", status: "accepted", sales: 5 },
        { day: "2026-04-01", status: "failed", sales: 7 },
        { day: "2026-03-31", status: "accepted", sales: 100 },
      ],
      days,
    );
    const [today, week, month] = summarizePeriods(byDay, "2026-04-30");
    expect(today).toMatchObject({ from: "2026-04-30", to: "2026-04-30", total: 4, acceptanceRate: 0.75 });
    expect(week).toMatchObject({
      from: "2026-04-24",
      total: 6,
      counts: { accepted: 3, rejected: 2, unknown: 1 },
    });
    expect(month).toMatchObject({ from: "2026-04-01", total: 18, counts: { accepted: 8, failed: 7 } });
  });

  it("leaves sales still being sent out of the acceptance rate, and has none without sales", () => {
    expect(acceptanceRate({ ...emptyCounts(), accepted: 1, pending: 3 })).toBe(1);
    expect(acceptanceRate(emptyCounts())).toBeNull();
  });
});
