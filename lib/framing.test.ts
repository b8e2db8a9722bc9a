import { describe, expect, it } from "vitest";
import { frameAncestors } from "./framing";

describe("frameAncestors", () => {
  it("allows only the app itself when no portal is configured", () => {
    expect(frameAncestors([])).toBe("frame-ancestors 'self'");
  });

  it("lists the exact configured origins after the app itself", () => {
    expect(frameAncestors(["https://portal.partner.example", "http://localhost:8080"])).toBe(
      "frame-ancestors 'self' https://portal.partner.example http://localhost:8080",
    );
  });
});
