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

// What Excel and LibreOffice open as-is in a pt-BR locale: UTF-8 with the byte order mark Excel looks for, `;`
// between cells (the comma is the decimal separator), a line feed after each row. The rows are written by the
// database (COPY's CSV, `exportCsvBatch`); the header's words need no quoting.
const BOM = "\uFEFF";

/**
 * A CSV file as a byte stream: the header, then each batch's lines as they come, each batch read only when the
 * client has taken the previous one (pull), so a large export never sits in memory. Cancelling stops the batches.
 */
export function csvStream(header: string[], batches: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = batches[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`${BOM}${header.join(";")}\n`));
      },
      async pull(controller) {
        // A pull that enqueued nothing would not be called again for the read that is waiting.
        for (;;) {
          const next = await iterator.next();
          if (next.done) return controller.close();
          if (next.value.byteLength > 0) return controller.enqueue(next.value);
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
