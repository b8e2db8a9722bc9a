import { describe, expect, it } from "vitest";
import { DAILY_MS, MIN_CHANGED_PAGES, planUpkeep, type TableState } from "./upkeep-plan";

const NOW = new Date("2026-11-24T12:00:00Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const HOUR = 3_600_000;

/** A 1,000-page table vacuumed and analyzed an hour ago by this process, nothing changed since. */
const current: TableState = {
  table: "sales",
  pages: 1_000,
  allVisiblePages: 1_000,
  lastPages: 1_000,
  lastTuples: 20_000,
  hasStatistics: true,
  vacuumedAt: ago(HOUR),
};

const planOf = (changes: Partial<TableState>, startedAt = ago(2 * HOUR)) => {
  const [plan] = planUpkeep([{ ...current, ...changes }], NOW, startedAt);
  return [plan!.task, plan!.reason];
};

describe("planUpkeep", () => {
  it("leaves alone an empty table and one all-visible since its last run", () => {
    expect(planOf({ pages: 0, allVisiblePages: 0, lastTuples: -1, hasStatistics: false })).toEqual([
      null,
      "empty",
    ]);
    expect(planOf({})).toEqual([null, "all_visible"]);
    expect(planOf({ vacuumedAt: ago(30 * DAILY_MS) })).toEqual([null, "all_visible"]);
  });

  it("vacuums and analyzes a table never analyzed, and analyzes one an index build counted", () => {
    const never = {
      allVisiblePages: 0,
      lastPages: 0,
      lastTuples: -1,
      hasStatistics: false,
      vacuumedAt: undefined,
    };
    expect(planOf(never)).toEqual(["vacuum_analyze", "no_statistics"]);
    expect(planOf({ ...never, pages: 1 })).toEqual(["vacuum_analyze", "no_statistics"]);
    // CREATE INDEX sets reltuples and relpages, never statistics.
    expect(planOf({ hasStatistics: false })).toEqual(["analyze", "no_statistics"]);
    // An ANALYZE that found no rows stores no statistics either: not asked again every run.
    expect(
      planOf({ pages: 2, allVisiblePages: 2, lastPages: 2, lastTuples: 0, hasStatistics: false }),
    ).toEqual([null, "all_visible"]);
  });

  it("leaves changes below the floor, however large a share of a small table", () => {
    const small = { pages: 20, lastPages: 20, lastTuples: 300 };
    expect(planOf({ ...small, allVisiblePages: 20 - (MIN_CHANGED_PAGES - 1) })).toEqual([
      null,
      "below_threshold",
    ]);
    expect(planOf({ ...small, allVisiblePages: 20 - MIN_CHANGED_PAGES })).toEqual([
      "vacuum_analyze",
      "not_visible",
    ]);
    expect(planOf({ allVisiblePages: 999 })).toEqual([null, "below_threshold"]);
  });

  it("vacuums and analyzes once a fifth of the pages changed", () => {
    expect(planOf({ allVisiblePages: 801 })).toEqual([null, "below_threshold"]);
    expect(planOf({ allVisiblePages: 800 })).toEqual(["vacuum_analyze", "not_visible"]);
  });

  it("vacuums and analyzes a table grown by a tenth since its last VACUUM or ANALYZE (a bulk import)", () => {
    expect(planOf({ pages: 1_099 })).toEqual([null, "below_threshold"]);
    expect(planOf({ pages: 1_100 })).toEqual(["vacuum_analyze", "grew"]);
    // From nothing, the floor counts: a few new pages are not a tenth worth a pause.
    const fresh = { lastPages: 0, lastTuples: 0, hasStatistics: false };
    expect(
      planOf({ ...fresh, pages: MIN_CHANGED_PAGES - 1, allVisiblePages: MIN_CHANGED_PAGES - 1 }),
    ).toEqual([null, "all_visible"]);
    expect(planOf({ ...fresh, pages: MIN_CHANGED_PAGES, allVisiblePages: MIN_CHANGED_PAGES })).toEqual([
      "vacuum_analyze",
      "grew",
    ]);
  });

  it("at a process's first look, vacuums what changed since the last one above the floor", () => {
    const first = { vacuumedAt: undefined };
    expect(planOf({ ...first, allVisiblePages: 1_000 - MIN_CHANGED_PAGES })).toEqual([
      "vacuum_analyze",
      "first_run",
    ]);
    expect(planOf({ ...first, allVisiblePages: 1_000 - MIN_CHANGED_PAGES + 1 })).toEqual([
      null,
      "below_threshold",
    ]);
  });

  it("vacuums daily whatever changed below the thresholds, counting from the process's start", () => {
    expect(planOf({ allVisiblePages: 999, vacuumedAt: ago(DAILY_MS - 1) })).toEqual([
      null,
      "below_threshold",
    ]);
    expect(planOf({ allVisiblePages: 999, vacuumedAt: ago(DAILY_MS) })).toEqual(["vacuum_analyze", "daily"]);
    expect(planOf({ allVisiblePages: 999, vacuumedAt: undefined }, ago(DAILY_MS - 1))).toEqual([
      null,
      "below_threshold",
    ]);
    expect(planOf({ allVisiblePages: 999, vacuumedAt: undefined }, ago(DAILY_MS))).toEqual([
      "vacuum_analyze",
      "daily",
    ]);
  });

  it("plans each table apart", () => {
    const plans = planUpkeep(
      [
        current,
        { ...current, table: "job_leases", pages: 1, allVisiblePages: 0, lastPages: 1, lastTuples: 1 },
      ],
      NOW,
      ago(HOUR),
    );
    expect(plans).toEqual([
      { table: "sales", task: null, reason: "all_visible" },
      { table: "job_leases", task: null, reason: "below_threshold" },
    ]);
  });
});
