import { describe, expect, it } from "vitest";
import { formatLogLine, scrubPersonalData } from "./log";

describe("log lines", () => {
  it("are one JSON object with time, level, service and event", () => {
    const line = JSON.parse(
      formatLogLine("info", "sales.replay", { submissionId: "abc", status: "accepted" }),
    );
    expect(line).toMatchObject({ level: "info", service: "app", event: "sales.replay", submissionId: "abc" });
    expect(new Date(line.time).toString()).not.toBe("Invalid Date");
  });

  it("blank fields that look like secrets or personal data, even nested", () => {
    const line = formatLogLine("info", "x", {
      clientSecret: "s3cr3t",
      token: "abc",
      nested: { customerDocument: "52998224725", customerEmail: "a@b.com", authorization: "Bearer x" },
      clientId: "partner-a",
    });
    for (const value of ["s3cr3t", "52998224725", "a@b.com", "Bearer x"]) expect(line).not.toContain(value);
    expect(line).toContain("partner-a");
  });

  it("keep a driver error's name and code but not its message, which quotes the query's parameters", () => {
    const error = Object.assign(
      new Error("Failed query: insert into sales …\nparams: 52998224725,maria@example.com"),
      {
        name: "DrizzleQueryError",
        cause: { code: "57P01" },
      },
    );
    const line = JSON.parse(formatLogLine("error", "sales.action_failed", { error }));
    expect(line.error).toEqual({ name: "DrizzleQueryError", code: "57P01" });
  });
});

describe("scrubPersonalData", () => {
  it("blanks CPFs, phones, e-mails and query parameters, and keeps addresses, ports and dates", () => {
    const text = scrubPersonalData(
      "CPF 529.982.247-25 phone (11) 98765-4321 mail maria@example.com at 127.0.0.1:5432 on 2026-11-23",
    );
    expect(text).toBe("CPF [redacted] phone [redacted] mail [redacted] at 127.0.0.1:5432 on 2026-11-23");
    expect(scrubPersonalData("Failed query: insert … params: 52998224725,Maria")).toBe(
      "Failed query: insert … params: [redacted]",
    );
  });
});

describe("scrubPersonalData on hostile text", () => {
  it("reads at most 2,000 characters, so its work is bounded whatever an attacker sends (a URL in a warning)", () => {
    for (const text of ["(".repeat(200_000), "a".repeat(200_000), `${"1.".repeat(100_000)}x`]) {
      expect(scrubPersonalData(text).length).toBeLessThanOrEqual(2_000);
    }
  });
});
