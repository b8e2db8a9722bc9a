export type BirthDateProblem = "format" | "invalid" | "future" | "too-old";

export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

export const MAX_AGE_YEARS = 130;

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** A real calendar date written `YYYY-MM-DD`, or null. */
export function parseIsoDate(value: string): CalendarDate | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

/** `DD/MM/AAAA` (as typed in the form) to `YYYY-MM-DD`; null when the shape is wrong. */
export function brazilianDateToIso(value: string): string | null {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value.trim());
  return match ? `${match[3]}-${match[2]}-${match[1]}` : null;
}

function compareDates(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

// `today` is read in the local time zone of whoever calls: the agent's browser or the server.
function calendarDateOf(date: Date): CalendarDate {
  return { year: date.getFullYear(), month: date.getMonth() + 1, day: date.getDate() };
}

export function ageInYears(birth: CalendarDate, today: CalendarDate): number {
  const hadBirthdayThisYear =
    today.month > birth.month || (today.month === birth.month && today.day >= birth.day);
  return today.year - birth.year - (hadBirthdayThisYear ? 0 : 1);
}

export function birthDateProblem(iso: string, today: Date): BirthDateProblem | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) return "format";
  const birth = parseIsoDate(iso);
  if (!birth) return "invalid";
  const current = calendarDateOf(today);
  if (compareDates(birth, current) > 0) return "future";
  if (ageInYears(birth, current) > MAX_AGE_YEARS) return "too-old";
  return null;
}
