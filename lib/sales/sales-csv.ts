/** The history's columns as a spreadsheet shows them (pt-BR). */
export const SALES_CSV_HEADER = [
  "Data",
  "Protocolo",
  "Situação",
  "Agente",
  "Integração",
  "Cliente",
  "CPF",
  "Plano",
  "ID do cliente no parceiro",
  "Mensagem do fornecedor",
  "Conferida por",
  "Conferida em",
  "Versão do roteiro",
  "Hash do roteiro",
  "Confirmações do cliente",
  "ID da gravação",
];

// What Excel and LibreOffice open as-is in a pt-BR locale: UTF-8 with the byte order mark Excel looks for, `;`
// between cells (the comma is the decimal separator), a line feed after each row. The rows are written by the
// database (COPY's CSV, `exportCsvBatch`); the header's words need no quoting.
const BOM = "\uFEFF";

export interface CsvStreamOptions {
  /** The stream errors (the download fails) if it has not ended by then, read or not: a stalled client too. */
  deadlineMs?: number;
  /** Called once if the deadline is what ended it, before `onEnd`. */
  onDeadline?: () => void;
  /** Called once when the stream ends, fails, is cancelled or runs out of time. */
  onEnd?: () => void;
}

/**
 * A CSV file as a byte stream: the header, then each batch's lines as they come, each batch read only when the
 * client has taken the previous one (pull), so a large export never sits in memory. Cancelling stops the batches.
 */
export function csvStream(
  header: string[],
  batches: AsyncIterable<Uint8Array>,
  { deadlineMs, onDeadline, onEnd }: CsvStreamOptions = {},
): ReadableStream<Uint8Array> {
  const iterator = batches[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    onEnd?.();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`${BOM}${header.join(";")}\n`));
        if (deadlineMs !== undefined) {
          timer = setTimeout(() => {
            onDeadline?.();
            controller.error(new Error("The export ran out of time."));
            end();
            void iterator.return?.();
          }, deadlineMs);
          timer.unref?.();
        }
      },
      async pull(controller) {
        try {
          // A pull that enqueued nothing would not be called again for the read that is waiting.
          for (;;) {
            const next = await iterator.next();
            if (ended) return;
            if (next.done) {
              end();
              return controller.close();
            }
            if (next.value.byteLength > 0) return controller.enqueue(next.value);
          }
        } catch (error) {
          end();
          throw error;
        }
      },
      async cancel() {
        end();
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
