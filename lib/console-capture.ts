import { formatWithOptions } from "node:util";
import { log, scrubPersonalData } from "./log";

type Level = "debug" | "info" | "warn" | "error";

const METHODS: Record<"log" | "info" | "debug" | "trace" | "warn" | "error", Level> = {
  log: "info",
  info: "info",
  debug: "debug",
  trace: "debug",
  warn: "warn",
  error: "error",
};

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const MAX_MESSAGE_LENGTH = 2_000;

/** A console message as a log field: one line, no colours, nothing that looks like a customer's data. */
export function scrubConsoleText(text: string): string {
  return scrubPersonalData(text.slice(0, MAX_MESSAGE_LENGTH).replace(ANSI, ""))
    .replace(/\s*\n\s*/g, " | ")
    .trim();
}

/** Where an error was thrown (its stack's frames, never its message, which may quote data). */
function framesOf(error: Error): string[] {
  return (error.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 8)
    .map((line) => line.trim());
}

export function consoleFields(args: unknown[]): Record<string, unknown> {
  const error = args.find((arg): arg is Error => arg instanceof Error);
  const rest = args.filter((arg) => arg !== error);
  const text = formatWithOptions({ colors: false, depth: 2, breakLength: Infinity }, ...rest);
  return {
    message: scrubConsoleText(text),
    ...(error ? { error, frames: framesOf(error) } : {}),
  };
}

let installed = false;

/**
 * Everything the server prints through `console` — Next.js's own errors and warnings, libraries' notices — leaves
 * as a JSON log line like ours (event `console`), so operators' tools read one format.
 */
export function captureConsole(): void {
  if (installed) return;
  installed = true;
  for (const [method, level] of Object.entries(METHODS)) {
    (console as unknown as Record<string, (...args: unknown[]) => void>)[method] = (...args: unknown[]) =>
      log[level]("console", consoleFields(args));
  }
}
