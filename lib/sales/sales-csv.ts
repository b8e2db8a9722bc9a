import type { SaleListItem } from "@/lib/dal/sales-history";
import { formatDateTime, STATUS_LABELS } from "@/lib/format";

/** The history's columns as a spreadsheet shows them (pt-BR). */
export const SALES_CSV_HEADER = [
  "Data",
  "Protocolo",
  "Situação",
  "Agente",
  "Cliente",
  "CPF",
  "Plano",
  "ID do cliente no parceiro",
  "Mensagem do fornecedor",
  "Conferida por",
  "Conferida em",
];

// What Excel and LibreOffice open as-is in a pt-BR locale: `;` (the comma is the decimal separator), CRLF. Every
// cell a spreadsheet would run as a formula (=, +, -, @, their full-width forms, tab or CR first) gets a leading `'`
// (OWASP, CSV injection), and a cell holding `;`, `"` or any line break is quoted, its quotes doubled.
// These are csv-stringify's rules with `escape_formulas` (sales-csv.test.ts compares the two on every run), written
// out because the library cost about 10 µs a row: half of what a 50,000 rows/s export may spend on one.
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const NEEDS_QUOTES = /[;"\r\n]/;

function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const BOM = "\uFEFF";

/** One sale as a row of the export, in the header's order. */
export function salesCsvRecord(sale: SaleListItem, timeZone: string): string[] {
  return [
    formatDateTime(sale.createdAt, timeZone, "minutes"),
    sale.protocol,
    STATUS_LABELS[sale.status],
    sale.agentName,
    sale.customerName,
    sale.maskedCpf,
    sale.planName,
    sale.externalId ?? "",
    sale.upstreamMessage ?? "",
    sale.resolvedBy ?? "",
    sale.resolvedAt ? formatDateTime(sale.resolvedAt, timeZone, "minutes") : "",
  ];
}

/** CSV text of `records`, each ended by CRLF; the first chunk of a file starts with the byte order mark Excel looks for. */
export function csvText(records: string[][], options: { bom?: boolean } = {}): string {
  let text = options.bom ? BOM : "";
  for (const record of records) text += `${record.map(csvCell).join(";")}\r\n`;
  return text;
}

/**
 * A CSV file as a byte stream: the header, then one chunk per batch, each batch read only when the client has
 * taken the previous one (pull), so a large export never sits in memory. Cancelling stops the batches.
 */
export function csvStream(header: string[], batches: AsyncIterable<string[][]>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = batches[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(csvText([header], { bom: true })));
      },
      async pull(controller) {
        // A pull that enqueued nothing would not be called again for the read that is waiting.
        for (;;) {
          const next = await iterator.next();
          if (next.done) return controller.close();
          if (next.value.length > 0) return controller.enqueue(encoder.encode(csvText(next.value)));
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
