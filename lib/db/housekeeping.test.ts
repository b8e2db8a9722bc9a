import { describe, expect, it } from "vitest";
import { housekeepingDue } from "./housekeeping";

describe("housekeepingDue", () => {
  it("is due once a minute per task and per database", () => {
    const db = {};
    const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, seconds));
    expect(housekeepingDue(db, "sessions", at(0))).toBe(true);
    expect(housekeepingDue(db, "sessions", at(30))).toBe(false);
    expect(housekeepingDue(db, "throttle", at(30))).toBe(true);
    expect(housekeepingDue({}, "sessions", at(30))).toBe(true);
    expect(housekeepingDue(db, "sessions", at(59))).toBe(false);
    expect(housekeepingDue(db, "sessions", at(60))).toBe(true);
  });
});
