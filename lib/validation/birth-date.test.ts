import { describe, expect, it } from "vitest";
import { ageInYears, birthDateProblem, brazilianDateToIso, parseIsoDate } from "./birth-date";

const today = new Date(2025, 5, 15, 12); // 15 June 2025, local time

describe("parseIsoDate", () => {
  it("parses real dates", () => {
    expect(parseIsoDate("1990-12-31")).toEqual({ year: 1990, month: 12, day: 31 });
    expect(parseIsoDate("2000-02-29")).toEqual({ year: 2000, month: 2, day: 29 });
    expect(parseIsoDate("2024-02-29")).toEqual({ year: 2024, month: 2, day: 29 });
  });

  it.each([
    "2000-02-31",
    "2001-02-29",
    "1900-02-29",
    "2023-04-31",
    "2023-13-01",
    "2023-00-10",
    "2023-01-00",
    "2023-1-05",
    "05/01/2023",
    "2023-01-05T00:00:00Z",
    "",
  ])("rejects %j", (value) => {
    expect(parseIsoDate(value)).toBeNull();
  });
});

describe("brazilianDateToIso", () => {
  it("reorders DD/MM/AAAA", () => {
    expect(brazilianDateToIso("31/12/1990")).toBe("1990-12-31");
    expect(brazilianDateToIso("1/2/1990")).toBeNull();
    expect(brazilianDateToIso("1990-12-31")).toBeNull();
  });
});

describe("ageInYears", () => {
  it("counts whole years, birthday included", () => {
    expect(ageInYears({ year: 2000, month: 6, day: 15 }, { year: 2025, month: 6, day: 15 })).toBe(25);
    expect(ageInYears({ year: 2000, month: 6, day: 16 }, { year: 2025, month: 6, day: 15 })).toBe(24);
  });
});

describe("birthDateProblem", () => {
  it.each([
    ["1990-12-31", null],
    ["2025-06-15", null],
    ["1895-06-15", null],
    ["1894-06-16", null],
    ["1990-31-12", "invalid"],
    ["2001-02-29", "invalid"],
    ["31/12/1990", "format"],
    ["1990-12-31 ", "format"],
    ["", "format"],
    ["2025-06-16", "future"],
    ["2030-01-01", "future"],
    ["1894-06-15", "too-old"],
    ["1800-01-01", "too-old"],
  ])("%j → %s", (iso, problem) => {
    expect(birthDateProblem(iso, today)).toBe(problem);
  });
});
