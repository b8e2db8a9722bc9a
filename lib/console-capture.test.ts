import { describe, expect, it } from "vitest";
import { consoleFields } from "./console-capture";
import { formatLogLine } from "./log";

describe("console capture", () => {
  it("turns what Next.js prints on an error into one JSON line without the data the error quotes", () => {
    const error = new Error("insert failed for maria@example.com");
    const line = formatLogLine("error", "console", consoleFields(["\u001b[31m⨯\u001b[39m", error]));
    const parsed = JSON.parse(line);
    expect(parsed).toMatchObject({ level: "error", event: "console", message: "⨯" });
    expect(parsed.error).toEqual({ name: "Error", message: "insert failed for [redacted]" });
    expect(parsed.frames[0]).toMatch(/^at /);
    expect(line).not.toContain("maria@example.com");
  });

  it("folds a multi-line message into one line and formats placeholders", () => {
    const fields = consoleFields(["%s started\non port %d", "server", 3000]);
    expect(fields.message).toBe("server started | on port 3000");
  });
});
