/** A security log line as JSON (lib/security-log/line.ts). */
export type Line = Record<string, unknown>;

/** The security lines in `text` (a log, or a CLI's standard error). */
export const securityLines = (text: string): Line[] =>
  text
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes('"category":"security"'))
    .map((line) => JSON.parse(line) as Line);

/** The first of `lines` with every field of `expected`. */
export const matching = (lines: Line[], expected: Line) =>
  lines.find((line) => Object.entries(expected).every(([key, value]) => line[key] === value));
