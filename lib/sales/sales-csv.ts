import { stringify, type Options } from "csv-stringify/sync";
import type { SaleListItem } from "@/lib/dal/sales";
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
// cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading `'` (OWASP, CSV injection),
// and a cell holding any line break is quoted, CRLF or not.
const CSV_OPTIONS: Options = {
  delimiter: ";",
  record_delimiter: "\r\n",
  quote_record_delimiter: true,
  escape_formulas: true,
};

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

/** CSV text of `records`; the first chunk of a file starts with the UTF-8 byte order mark Excel looks for. */
export function csvText(records: string[][], options: { bom?: boolean } = {}): string {
  return stringify(records, { ...CSV_OPTIONS, bom: options.bom ?? false });
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
