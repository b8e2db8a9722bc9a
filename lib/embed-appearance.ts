/**
 * A portal's look for the embedded form (embed.js's `appearance` option, carried in the frame's address): brand
 * colour, corner radius and font family. The values end up in a stylesheet, so only strict formats pass; anything
 * else is ignored (the app's own look stays) and reported to the portal as a warning. Client-safe: plain data.
 */

/** The query parameter of each setting, in the frame's address and in the stylesheet's. */
export const APPEARANCE_PARAMETERS = {
  brandColor: "brand-color",
  radius: "radius",
  fontFamily: "font-family",
} as const;

export type AppearanceSetting = keyof typeof APPEARANCE_PARAMETERS;

export interface Appearance {
  /** `#rrggbb`, lower case. */
  brandColor?: string;
  /** Pixels, 0 to MAX_RADIUS_PX. */
  radius?: number;
  /** Family names, the generic ones last or none. */
  fontFamily?: string[];
}

export type AppearanceWarningCode = "appearance_invalid" | "appearance_low_contrast";

export interface AppearanceWarning {
  code: AppearanceWarningCode;
  setting: AppearanceSetting;
}

export const MAX_RADIUS_PX = 16;
// The brand colour is the buttons' background under white text, and the links' colour on white: WCAG AA for text.
export const MIN_CONTRAST_WITH_WHITE = 4.5;
const MAX_FAMILIES = 4;

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const RADIUS = /^\d{1,2}$/;
// No quote, backslash, semicolon, brace or parenthesis can reach the stylesheet: each name is quoted there.
const FAMILY_NAME = /^[A-Za-z0-9][A-Za-z0-9 -]{0,39}$/;
const GENERIC_FAMILIES = new Set([
  "serif",
  "sans-serif",
  "monospace",
  "cursive",
  "fantasy",
  "system-ui",
  "ui-serif",
  "ui-sans-serif",
  "ui-monospace",
  "ui-rounded",
]);

type Parsed<T> = { ok: true; value: T } | { ok: false; code: AppearanceWarningCode };
type Query = Record<string, string | string[] | undefined>;

function parseBrandColor(raw: string): Parsed<string> {
  if (!HEX_COLOR.test(raw)) return { ok: false, code: "appearance_invalid" };
  const digits = raw.slice(1).toLowerCase();
  const color = `#${digits.length === 3 ? [...digits].map((digit) => digit + digit).join("") : digits}`;
  return contrastWithWhite(color) >= MIN_CONTRAST_WITH_WHITE
    ? { ok: true, value: color }
    : { ok: false, code: "appearance_low_contrast" };
}

function parseRadius(raw: string): Parsed<number> {
  const pixels = Number(raw);
  return RADIUS.test(raw) && pixels <= MAX_RADIUS_PX
    ? { ok: true, value: pixels }
    : { ok: false, code: "appearance_invalid" };
}

function parseFontFamily(raw: string): Parsed<string[]> {
  const names = raw.split(",").map((name) => name.trim().replace(/\s+/g, " "));
  const genericAt = names.findIndex((name) => GENERIC_FAMILIES.has(name));
  const valid =
    names.length <= MAX_FAMILIES &&
    names.every((name) => FAMILY_NAME.test(name)) &&
    // A generic family is a fallback: nothing after it would ever be used.
    (genericAt === -1 || genericAt === names.length - 1);
  return valid ? { ok: true, value: names } : { ok: false, code: "appearance_invalid" };
}

const PARSERS: { [Setting in AppearanceSetting]: (raw: string) => Parsed<Required<Appearance>[Setting]> } = {
  brandColor: parseBrandColor,
  radius: parseRadius,
  fontFamily: parseFontFamily,
};

/** The settings a query names, each valid or reported; an absent or empty parameter is no setting. */
export function parseAppearance(query: Query): { appearance: Appearance; warnings: AppearanceWarning[] } {
  const appearance: Record<string, unknown> = {};
  const warnings: AppearanceWarning[] = [];
  for (const setting of Object.keys(PARSERS) as AppearanceSetting[]) {
    const raw = query[APPEARANCE_PARAMETERS[setting]];
    if (raw === undefined || raw === "") continue;
    const parsed =
      typeof raw === "string" ? PARSERS[setting](raw) : ({ ok: false, code: "appearance_invalid" } as const);
    if (parsed.ok) appearance[setting] = parsed.value;
    else warnings.push({ code: parsed.code, setting });
  }
  return { appearance: appearance as Appearance, warnings };
}

/** The settings as a query ("?brand-color=…", or "" for none): the stylesheet's, or /embed's to come back to. */
export function appearanceQuery(appearance: Appearance): string {
  const query = new URLSearchParams();
  if (appearance.brandColor) query.set(APPEARANCE_PARAMETERS.brandColor, appearance.brandColor);
  if (appearance.radius !== undefined) query.set(APPEARANCE_PARAMETERS.radius, String(appearance.radius));
  if (appearance.fontFamily) query.set(APPEARANCE_PARAMETERS.fontFamily, appearance.fontFamily.join(", "));
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The address of the stylesheet that applies these settings, or null for the app's own look. */
export function appearanceStylesheetHref(appearance: Appearance): string | null {
  const query = appearanceQuery(appearance);
  return query ? `/embed/appearance.css${query}` : null;
}

/**
 * The settings as Tailwind's theme variables (app/globals.css), which every utility of the form reads: brand 700 is
 * the buttons and links, 800 their hover, 600 the focus rings.
 */
export function appearanceStylesheet(appearance: Appearance): string {
  const variables: [string, string][] = [];
  if (appearance.brandColor) {
    variables.push(
      ["--color-brand-600", appearance.brandColor],
      ["--color-brand-700", appearance.brandColor],
      ["--color-brand-800", darken(appearance.brandColor, 0.2)],
    );
  }
  if (appearance.radius !== undefined) {
    variables.push(
      ["--radius-md", `${appearance.radius}px`],
      ["--radius-lg", `${Math.round((appearance.radius * 4) / 3)}px`],
    );
  }
  if (appearance.fontFamily) {
    const names = appearance.fontFamily.map((name) => (GENERIC_FAMILIES.has(name) ? name : `"${name}"`));
    if (!appearance.fontFamily.some((name) => GENERIC_FAMILIES.has(name)))
      names.push("system-ui", "sans-serif");
    variables.push(["--font-sans", names.join(", ")]);
  }
  return `:root {\n${variables.map(([name, value]) => `  ${name}: ${value};\n`).join("")}}\n`;
}

const channels = (color: string) => [1, 3, 5].map((start) => parseInt(color.slice(start, start + 2), 16));

function relativeLuminance(color: string): number {
  const [red = 0, green = 0, blue = 0] = channels(color).map((channel) => {
    const value = channel / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * red + 0.7152 * green + 0.0722 * blue;
}

/** WCAG 2's contrast ratio of a `#rrggbb` colour with white. */
export function contrastWithWhite(color: string): number {
  return 1.05 / (relativeLuminance(color) + 0.05);
}

/** Mixed with black: darker, so white text on it keeps at least the contrast it had. */
function darken(color: string, amount: number): string {
  return `#${channels(color)
    .map((channel) =>
      Math.round(channel * (1 - amount))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}
