import { describe, expect, it } from "vitest";
import { jsonLines } from "./json-lines";

describe("jsonLines", () => {
  it("passes JSON lines through and wraps any other line, across chunk boundaries", () => {
    const written: string[] = [];
    const lines = jsonLines("info", (text) => written.push(text));
    lines.push('{"event":"a"}\n   ▲ Next.js 16');
    lines.push('.4.6\n\n- Local: http://localhost:3000 for 52998224725\n{"event');
    lines.push('":"b"}');
    lines.flush();
    const parsed = written.map((line) => JSON.parse(line));
    expect(parsed.map((line) => line.event)).toEqual(["a", "process.output", "process.output", "b"]);
    expect(parsed[1]).toMatchObject({ level: "info", message: "▲ Next.js 16.4.6" });
    expect(parsed[2].message).toBe("- Local: http://localhost:3000 for [redacted]");
    expect(written.every((line) => line.endsWith("\n"))).toBe(true);
  });
});
