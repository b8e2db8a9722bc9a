import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { E2E_LOG_FILE } from "./support/environment";

// Runs after every other spec (its own project, playwright.config.ts): what the app and the sandbox printed
// during the whole end-to-end run, hostile input and errors included.
test("every line the app printed during the run is a JSON log line without customer data", () => {
  const lines = readFileSync(E2E_LOG_FILE, "utf8")
    .split("\n")
    .filter((line) => line.trim());
  expect(lines.length).toBeGreaterThan(100);
  const notJson = lines.filter((line) => {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      return !(
        typeof entry.time === "string" &&
        typeof entry.service === "string" &&
        typeof entry.event === "string"
      );
    } catch {
      return true;
    }
  });
  expect(notJson).toEqual([]);
  const app = lines.filter((line) => line.includes('"service":"app"'));
  // The sales of the run used customers at example.com and CPFs of 11 digits; none of it may be in the app's log.
  expect(app.filter((line) => /@example\.com|\b\d{3}\.?\d{3}\.?\d{3}-?\d{2}\b/.test(line))).toEqual([]);
  // Nor a signed token (the portals' embed tokens included, even one that came in an address).
  expect(app.filter((line) => /eyJ[\w-]+\.eyJ[\w-]+\./.test(line))).toEqual([]);
});
