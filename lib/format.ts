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

/**
 * "03/04/2026 14:05:09" in `timeZone` (APP_TIME_ZONE), or without seconds for the export: built from parts, so the
 * layout does not follow the ICU version's idea of pt-BR (which has put a comma between date and time).
 */
export function formatDateTime(date: Date, timeZone: string, precision: "seconds" | "minutes" = "seconds") {
  const { day, month, year, hour, minute, second } = partsIn(timeZone, date);
  const time = precision === "seconds" ? `${hour}:${minute}:${second}` : `${hour}:${minute}`;
  return `${day}/${month}/${year} ${time}`;
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

/** "Venda aceita", "Venda a confirmar": the heading of a sale's page, in the vocabulary's words. */
export const saleTitle = (status: keyof typeof STATUS_LABELS) =>
  `Venda ${STATUS_LABELS[status].toLowerCase()}`;
