import { stringify } from "csv-stringify/sync";
import { describe, expect, it } from "vitest";
import type { SaleListItem } from "@/lib/dal/sales-history";
import { csvStream, csvText, SALES_CSV_HEADER, salesCsvRecord } from "./sales-csv";

const sale = (overrides: Partial<SaleListItem> = {}): SaleListItem => ({
  submissionId: "8d0b6f3e-1c2a-4b5d-9e8f-7a6b5c4d3e2f",
  protocol: "7KQ2M-X9R4B",
  status: "accepted",
  customerName: "Helena Prado",
  maskedCpf: "***.982.247-**",
  planName: "Plano Premium",
  externalId: "CRM-77",
  agentName: "Agente Demo",
  createdAt: new Date("2026-04-03T13:05:09.456Z"),
  upstreamMessage: "Partner sale registered.",
  resolvedBy: null,
  resolvedAt: null,
  ...overrides,
});

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return chunks;
}

describe("the sales CSV", () => {
  it("writes a row in the header's order, times in the app's zone to the minute, statuses in words", () => {
    expect(salesCsvRecord(sale(), "America/Sao_Paulo")).toEqual([
      "03/04/2026 10:05",
      "7KQ2M-X9R4B",
      "Aceita",
      "Agente Demo",
      "Helena Prado",
      "***.982.247-**",
      "Plano Premium",
      "CRM-77",
      "Partner sale registered.",
      "",
      "",
    ]);
    const settled = sale({
      status: "failed",
      externalId: null,
      upstreamMessage: null,
      resolvedBy: "Supervisora Demo",
      resolvedAt: new Date("2026-04-03T15:00:00Z"),
    });
    expect(salesCsvRecord(settled, "America/Manaus")).toEqual([
      "03/04/2026 09:05",
      "7KQ2M-X9R4B",
      "Não enviada",
      "Agente Demo",
      "Helena Prado",
      "***.982.247-**",
      "Plano Premium",
      "",
      "",
      "Supervisora Demo",
      "03/04/2026 11:00",
    ]);
    expect(SALES_CSV_HEADER).toHaveLength(salesCsvRecord(sale(), "UTC").length);
  });

  it("neutralises every cell a spreadsheet would run as a formula (OWASP), quoting what needs it", () => {
    const cells = [
      '=HYPERLINK("http://x")',
      "+55 11",
      "-Ana",
      "@SUM(A1)",
      "\tTab",
      "\rCR",
      "＝1+1",
      "a;b",
      "a\nb",
    ];
    expect(csvText([cells])).toBe(
      [
        `"'=HYPERLINK(""http://x"")"`,
        "'+55 11",
        "'-Ana",
        "'@SUM(A1)",
        "'\tTab",
        `"'\rCR"`,
        "'＝1+1",
        `"a;b"`,
        `"a\nb"`,
      ].join(";") + "\r\n",
    );
  });

  it("writes what csv-stringify writes with the same rules, for cells made of every character that matters", () => {
    const pieces = [
      "=",
      "+",
      "-",
      "@",
      "\t",
      "\r",
      "\n",
      "\r\n",
      ";",
      ",",
      '"',
      "'",
      "＝",
      "＋",
      "－",
      "＠",
      " ",
      "a",
      "ç",
      "1",
      "",
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    const records = Array.from({ length: 400 }, () =>
      Array.from({ length: 1 + (next() % 5) }, () =>
        Array.from({ length: next() % 5 }, () => pieces[next() % pieces.length]).join(""),
      ),
    );
    const library = {
      delimiter: ";",
      record_delimiter: "\r\n",
      quote_record_delimiter: true,
      escape_formulas: true,
    };
    expect(csvText(records)).toBe(stringify(records, library));
    expect(csvText([SALES_CSV_HEADER], { bom: true })).toBe(
      stringify([SALES_CSV_HEADER], { ...library, bom: true }),
    );
  });

  it("streams a UTF-8 file with a BOM, `;` and CRLF, reading a batch only when the reader asks", async () => {
    const asked: number[] = [];
    async function* batches() {
      for (const batch of [1, 2, 3]) {
        asked.push(batch);
        yield batch === 2 ? [] : [[`linha ${batch}`, "ç"]];
      }
    }
    const reader = csvStream(["Coluna", "Situação"], batches()).getReader();
    const first = await reader.read();
    expect(asked).toEqual([]);
    expect([...first.value!.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rest = await readAll(reader);
    expect(asked).toEqual([1, 2, 3]);
    const decoder = new TextDecoder();
    expect([first.value!, ...rest].map((chunk) => decoder.decode(chunk, { stream: true })).join("")).toBe(
      "Coluna;Situação\r\nlinha 1;ç\r\nlinha 3;ç\r\n",
    );
  });

  it("stops reading batches when the download is cancelled", async () => {
    let finished = false;
    async function* batches() {
      try {
        for (;;) yield [["mais"]];
      } finally {
        finished = true;
      }
    }
    const reader = csvStream(["Coluna"], batches()).getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    expect(finished).toBe(true);
  });
});
