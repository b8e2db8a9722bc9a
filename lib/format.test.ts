import { describe, expect, it } from "vitest";
import { formatDateTime } from "./format";

/** What Intl itself says in `timeZone`, laid out as formatDateTime lays it out. */
function intlIn(timeZone: string): (date: Date) => string {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  return (date) => {
    const parts = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
    return `${parts.day}/${parts.month}/${parts.year} ${parts.hour}:${parts.minute}:${parts.second}`;
  };
}

describe("dates and times in the app's time zone", () => {
  it.each(["America/Sao_Paulo", "America/St_Johns", "Asia/Kathmandu", "Australia/Lord_Howe", "UTC"])(
    "read as Intl reads them in %s, across its offset changes",
    (timeZone) => {
      // Every 67 minutes and 13 seconds through 2018-2019, when São Paulo still moved its clocks; and each
      // minute of the hours around its changes.
      const byIntl = intlIn(timeZone);
      const wrong: string[] = [];
      const check = (time: number) => {
        const date = new Date(time);
        if (formatDateTime(date, timeZone) !== byIntl(date)) wrong.push(date.toISOString());
      };
      for (let time = Date.UTC(2018, 0, 1); time < Date.UTC(2020, 0, 1); time += 4_033_000) check(time);
      for (const change of [Date.UTC(2018, 10, 4, 3), Date.UTC(2019, 1, 17, 2)]) {
        for (let time = change - 3_600_000; time < change + 3_600_000; time += 60_000) check(time);
      }
      expect(wrong).toEqual([]);
    },
  );

  it("leaves the seconds out for the export", () => {
    expect(formatDateTime(new Date("2026-04-03T17:05:09Z"), "America/Sao_Paulo", "minutes")).toBe(
      "03/04/2026 14:05",
    );
  });
});
