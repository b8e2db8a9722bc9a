import { describe, expect, it } from "vitest";
import { isRecordingId } from "./evidence";

describe("isRecordingId", () => {
  it("takes a dialer's ids: letters, digits and . _ : / # -, up to 100", () => {
    expect(isRecordingId("rec-2026-11-29_134001.wav")).toBe(true);
    expect(isRecordingId("dialer:fila/7#42")).toBe(true);
    expect(isRecordingId("gravação-1")).toBe(true);
    expect(isRecordingId("a".repeat(100))).toBe(true);
  });

  it("refuses spaces, markup, empty text and more than 100 characters", () => {
    expect(isRecordingId("rec 1")).toBe(false);
    expect(isRecordingId("<b>1</b>")).toBe(false);
    expect(isRecordingId("")).toBe(false);
    expect(isRecordingId("a".repeat(101))).toBe(false);
  });
});
