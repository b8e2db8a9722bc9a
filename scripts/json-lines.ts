import { formatLogLine, scrubPersonalData } from "../lib/log";

function isJsonObject(line: string): boolean {
  if (!line.startsWith("{")) return false;
  try {
    return typeof JSON.parse(line) === "object";
  } catch {
    return false;
  }
}

/**
 * A child's output, line by line: JSON lines pass as they are; any other line (Next.js's start-up banner, printed
 * before the app's own logger takes over; Node's warnings; a crash) becomes one, so the log has a single format.
 */
export function jsonLines(level: "info" | "error", write: (text: string) => void) {
  let carry = "";
  const emit = (line: string) => {
    const text = line.trimEnd();
    if (!text.trim()) return;
    write(
      isJsonObject(text)
        ? `${text}\n`
        : `${formatLogLine(level, "process.output", { message: scrubPersonalData(text.trim()) })}\n`,
    );
  };
  return {
    push(chunk: Buffer | string) {
      const lines = (carry + chunk.toString()).split("\n");
      carry = lines.pop() ?? "";
      lines.forEach(emit);
    },
    flush() {
      emit(carry);
      carry = "";
    },
  };
}
