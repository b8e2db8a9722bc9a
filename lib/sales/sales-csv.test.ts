import { describe, expect, it } from "vitest";
import { csvStream, SALES_CSV_HEADER } from "./sales-csv";

const encoder = new TextEncoder();

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return chunks;
}

describe("the sales CSV", () => {
  it("has a header in pt-BR whose words need no quoting or neutralising", () => {
    expect(SALES_CSV_HEADER).toHaveLength(16);
    for (const word of SALES_CSV_HEADER) expect(word).toMatch(/^[\p{L} ]+$/u);
  });

  it("streams a UTF-8 file with a BOM and `;`, reading a batch only when the reader asks", async () => {
    const asked: number[] = [];
    async function* batches() {
      for (const batch of [1, 2, 3]) {
        asked.push(batch);
        yield encoder.encode(batch === 2 ? "" : `linha ${batch};ç\n`);
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
      "Coluna;Situação\nlinha 1;ç\nlinha 3;ç\n",
    );
  });

  it("stops reading batches when the download is cancelled", async () => {
    let finished = false;
    async function* batches() {
      try {
        for (;;) yield encoder.encode("mais\n");
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
