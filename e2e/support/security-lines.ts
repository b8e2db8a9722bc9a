/** A security log line as JSON (lib/security-log/line.ts). */
export type Line = Record<string, unknown>;

/** The JSON lines of `text` (a log, or a CLI's standard error) that hold `marker`, parsed. */
const jsonLines = (text: string, marker: string): Line[] =>
  text
    .split("\n")
    .filter((line) => line.startsWith("{") && line.includes(marker))
    .map((line) => JSON.parse(line) as Line);

/** The security lines in `text` (a log, or a CLI's standard error). */
export const securityLines = (text: string): Line[] => jsonLines(text, '"category":"security"');

/** The lines of one `event` in `text`, security or not. */
export const logLines = (text: string, event: string): Line[] =>
  jsonLines(text, `"event":"${event}"`).filter((line) => line.event === event);

/** The first of `lines` with every field of `expected`. */
export const matching = (lines: Line[], expected: Line) =>
  lines.find((line) => Object.entries(expected).every(([key, value]) => line[key] === value));
