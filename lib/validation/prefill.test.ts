import { describe, expect, it } from "vitest";
import { pickPrefillFields } from "./prefill";

describe("pickPrefillFields", () => {
  it("keeps the sale's fields and the recording id, strings only, and drops anything else", () => {
    expect(
      pickPrefillFields({
        customerName: "Maria",
        recordingId: "dialer:2026/11/29#42",
        externalId: 42,
        customerAge: "30",
      }),
    ).toEqual({ customerName: "Maria", recordingId: "dialer:2026/11/29#42" });
  });

  it("reads anything that is not an object as no prefill", () => {
    expect(pickPrefillFields(null)).toEqual({});
    expect(pickPrefillFields("recordingId=1")).toEqual({});
  });
});
