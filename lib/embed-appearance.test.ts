import { describe, expect, it } from "vitest";
import {
  appearanceStylesheet,
  appearanceStylesheetHref,
  contrastWithWhite,
  parseAppearance,
} from "./embed-appearance";

const brandColor = (value: string) => parseAppearance({ "brand-color": value });
const radius = (value: string) => parseAppearance({ radius: value });
const fontFamily = (value: string) => parseAppearance({ "font-family": value });

describe("the portal's appearance", () => {
  it("is nothing when the address names none, or names one empty", () => {
    expect(parseAppearance({})).toEqual({ appearance: {}, warnings: [] });
    expect(parseAppearance({ "brand-color": "", radius: "", "font-family": "" })).toEqual({
      appearance: {},
      warnings: [],
    });
    expect(appearanceStylesheetHref({})).toBeNull();
  });

  it("takes a hex brand colour, long or short, in lower case", () => {
    expect(brandColor("#7A1F5C").appearance).toEqual({ brandColor: "#7a1f5c" });
    expect(brandColor("#06c").appearance).toEqual({ brandColor: "#0066cc" });
  });

  it.each([
    "7a1f5c",
    "#7a1f5",
    "#7a1f5c0",
    "#7a1f5g",
    "#7a1f5cff",
    "red",
    "rgb(122, 31, 92)",
    "var(--x)",
    "#7a1f5c;}body{background:url(https://evil.example/)}",
    "#7a1f5c\n",
  ])("refuses the brand colour %j as invalid", (value) => {
    expect(brandColor(value)).toEqual({
      appearance: {},
      warnings: [{ code: "appearance_invalid", setting: "brandColor" }],
    });
  });

  it("refuses a brand colour that white text cannot be read on (WCAG AA, 4.5:1)", () => {
    expect(contrastWithWhite("#767676")).toBeGreaterThanOrEqual(4.5);
    expect(contrastWithWhite("#777777")).toBeLessThan(4.5);
    expect(brandColor("#767676").appearance).toEqual({ brandColor: "#767676" });
    for (const light of ["#777777", "#ffff00", "#ffffff", "#1d9bf0"]) {
      expect(brandColor(light)).toEqual({
        appearance: {},
        warnings: [{ code: "appearance_low_contrast", setting: "brandColor" }],
      });
    }
  });

  it("takes a radius of 0 to 16 pixels, as a whole number", () => {
    expect(radius("0").appearance).toEqual({ radius: 0 });
    expect(radius("16").appearance).toEqual({ radius: 16 });
    for (const value of ["17", "-1", "8px", "8.5", "1e1", " 8", "0x8", "100"]) {
      expect(radius(value).warnings, value).toEqual([{ code: "appearance_invalid", setting: "radius" }]);
    }
  });

  it("takes up to four font family names of letters, digits, spaces and hyphens, a generic one last", () => {
    expect(fontFamily("Inter").appearance).toEqual({ fontFamily: ["Inter"] });
    expect(fontFamily(" Source  Sans 3 , Noto-Sans,serif").appearance).toEqual({
      fontFamily: ["Source Sans 3", "Noto-Sans", "serif"],
    });
    for (const value of [
      '"Inter"',
      "Inter;}body{display:none",
      "Inter\\",
      "</style><script>",
      "url(x)",
      "A, B, C, D, E",
      "serif, Inter",
      "Inter,,Arial",
      `Inter ${"x".repeat(40)}`,
      "Ínter",
    ]) {
      expect(fontFamily(value).warnings, value).toEqual([
        { code: "appearance_invalid", setting: "fontFamily" },
      ]);
    }
  });

  it("refuses a parameter given twice", () => {
    expect(parseAppearance({ radius: ["4", "8"] }).warnings).toEqual([
      { code: "appearance_invalid", setting: "radius" },
    ]);
  });

  it("keeps the valid settings and reports each invalid one", () => {
    expect(
      parseAppearance({ "brand-color": "#0a7d32", radius: "99", "font-family": "Georgia, serif" }),
    ).toEqual({
      appearance: { brandColor: "#0a7d32", fontFamily: ["Georgia", "serif"] },
      warnings: [{ code: "appearance_invalid", setting: "radius" }],
    });
  });

  it("round-trips through the stylesheet's address, which names only what was valid", () => {
    const appearance = { brandColor: "#0a7d32", radius: 4, fontFamily: ["Source Sans 3", "sans-serif"] };
    const href = appearanceStylesheetHref(appearance)!;
    expect(href).toBe(
      "/embed/appearance.css?brand-color=%230a7d32&radius=4&font-family=Source+Sans+3%2C+sans-serif",
    );
    const query = Object.fromEntries(new URL(href, "http://app.invalid").searchParams);
    expect(parseAppearance(query)).toEqual({ appearance, warnings: [] });
  });

  it("becomes Tailwind's theme variables, each family name quoted and a fallback added", () => {
    expect(appearanceStylesheet({ brandColor: "#0a7d32", radius: 6, fontFamily: ["Source Sans 3"] })).toBe(
      [
        ":root {",
        "  --color-brand-600: #0a7d32;",
        "  --color-brand-700: #0a7d32;",
        "  --color-brand-800: #086428;",
        "  --radius-md: 6px;",
        "  --radius-lg: 8px;",
        '  --font-sans: "Source Sans 3", system-ui, sans-serif;',
        "}",
        "",
      ].join("\n"),
    );
    expect(appearanceStylesheet({ fontFamily: ["Georgia", "serif"] })).toContain(
      '--font-sans: "Georgia", serif;',
    );
  });

  it("darkens the hover colour, so white text on it stays readable", () => {
    const stylesheet = appearanceStylesheet({ brandColor: "#767676" });
    const hover = /--color-brand-800: (#[0-9a-f]{6})/.exec(stylesheet)![1]!;
    expect(contrastWithWhite(hover)).toBeGreaterThan(contrastWithWhite("#767676"));
  });
});
