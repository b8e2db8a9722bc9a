import { describe, expect, it } from "vitest";
import { safeReturnPath } from "./safe-return-path";

describe("safeReturnPath", () => {
  it.each(["/", "/sales", "/sales?status=unknown", "/?origem=portal"])("keeps %j", (path) => {
    expect(safeReturnPath(path)).toBe(path);
  });

  it.each([
    "//evil.example",
    "/\\evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "https://evil.example/",
    "javascript:alert(1)",
    "sales",
    "",
    undefined,
    42,
  ])("refuses %j", (value) => {
    expect(safeReturnPath(value)).toBe("/");
  });
});
