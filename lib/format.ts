/** Display helpers shared by pages and the export: pt-BR, the app's time zone, CPF masked in lists. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function partsIn(timeZone: string, date: Date): Record<string, string> {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timeZone, formatter);
  }
  return Object.fromEntries(formatter.formatToParts(date).map((part) => [part.type, part.value]));
}

// Every zone's offset from UTC is a whole number of quarter hours, and changes only at a quarter hour: one
// formatToParts per zone and quarter hour (about 2 µs a date after that, against 20 for formatToParts) keeps an
// export of a million sales from spending its time here. Bounded: a long-running server forgets old quarters.
const QUARTER_HOUR_MS = 15 * 60_000;
const offsets = new Map<string, Map<number, number>>();

function offsetMs(timeZone: string, date: Date): number {
  let byQuarter = offsets.get(timeZone);
  if (!byQuarter) offsets.set(timeZone, (byQuarter = new Map()));
  const quarter = Math.floor(date.getTime() / QUARTER_HOUR_MS);
  let offset = byQuarter.get(quarter);
  if (offset === undefined) {
    const start = new Date(quarter * QUARTER_HOUR_MS);
    const { year, month, day, hour, minute } = partsIn(timeZone, start);
    offset =
      Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute)) - start.getTime();
    if (byQuarter.size >= 100_000) byQuarter.clear();
    byQuarter.set(quarter, offset);
  }
  return offset;
}

const two = (value: number) => String(value).padStart(2, "0");

/**
 * "03/04/2026 14:05:09" in `timeZone` (APP_TIME_ZONE), or without seconds for the export: built from parts, so the
 * layout does not follow the ICU version's idea of pt-BR (which has put a comma between date and time).
 */
export function formatDateTime(date: Date, timeZone: string, precision: "seconds" | "minutes" = "seconds") {
  const local = new Date(date.getTime() + offsetMs(timeZone, date));
  const time = `${two(local.getUTCHours())}:${two(local.getUTCMinutes())}`;
  return (
    `${two(local.getUTCDate())}/${two(local.getUTCMonth() + 1)}/${local.getUTCFullYear()} ` +
    (precision === "seconds" ? `${time}:${two(local.getUTCSeconds())}` : time)
  );
}

/** "2026-04-03": the calendar day in `timeZone`, for file names. */
export function isoDateIn(date: Date, timeZone: string): string {
  const { day, month, year } = partsIn(timeZone, date);
  return `${year}-${month}-${day}`;
}

/** "52998224725" → "***.982.247-**": enough to tell customers apart in a list, not to identify one. */
export function maskCpf(digits: string): string {
  return `***.${digits.slice(3, 6)}.${digits.slice(6, 9)}-**`;
}

export function formatCpf(digits: string): string {
  return `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6, 9)}-${digits.slice(9)}`;
}

export function formatPhone(digits: string): string {
  return digits.length === 11
    ? `(${digits.slice(0, 2)}) ${digits.slice(2, 7)}-${digits.slice(7)}`
    : `(${digits.slice(0, 2)}) ${digits.slice(2, 6)}-${digits.slice(6)}`;
}

export function formatIsoDate(iso: string): string {
  const [year, month, day] = iso.split("-");
  return `${day}/${month}/${year}`;
}

/** The one status vocabulary: the outcome panel ("Venda aceita"), the history, the sale page and the export. */
export const STATUS_LABELS = {
  pending: "Em envio",
  accepted: "Aceita",
  rejected: "Recusada",
  failed: "Não enviada",
  unknown: "A confirmar",
} as const;

/**
 * What the history, a sale's page and the export show instead of a customer whose personal data was erased
 * (lib/customers/retention.ts, `npm run customers -- erase`).
 */
export const ERASURE_LABELS = {
  retention: "dados removidos (retenção)",
  request: "dados removidos (pedido do titular)",
} as const;

/** "Venda aceita", "Venda a confirmar": the heading of a sale's page, in the vocabulary's words. */
export const saleTitle = (status: keyof typeof STATUS_LABELS) =>
  `Venda ${STATUS_LABELS[status].toLowerCase()}`;
