type Level = "debug" | "info" | "warn" | "error";
type Fields = Record<string, unknown>;

// A safety net, not the policy: callers never pass secrets or personal data, but a key that looks like
// one is blanked anyway so a slip cannot leak it into the log.
const SENSITIVE_KEY = /secret|token|password|authorization|cookie|cpf|document|email|phone|birth|name$/i;
const ALLOWED_KEYS = new Set([
  "event",
  "service",
  "clientId",
  "submissionId",
  "agentId",
  "tokenCached",
  // A keyed hash of an e-mail typed at sign-in (lib/security-log.ts), never the address.
  "emailHash",
]);

// What a message may quote of a customer: the parameters of a failed query, an e-mail, a CPF or phone number
// (a run with ten or more digits; an address like 127.0.0.1:5432 or a date keeps its fewer digits).
// Bounded quantifiers and a bounded input: these run on text an attacker can choose (a URL in a warning).
const QUERY_PARAMETERS = /\bparams:[\s\S]*$/;
const EMAIL = /[^\s@"'<>]{1,64}@[^\s@"'<>]{1,253}\.[^\s@"'<>]{1,63}/g;
const NUMBER_RUN = /[\d(][\d.\-()\s/]{8,24}\d/g;
const MAX_SCRUBBED_LENGTH = 2_000;

export function scrubPersonalData(text: string): string {
  return text
    .slice(0, MAX_SCRUBBED_LENGTH)
    .replace(QUERY_PARAMETERS, "params: [redacted]")
    .replace(EMAIL, "[redacted]")
    .replace(NUMBER_RUN, (run) => (run.replace(/\D/g, "").length >= 10 ? "[redacted]" : run));
}

function sanitize(value: unknown, depth = 0): unknown {
  if (value instanceof Error) {
    // Driver errors quote the failed query with its parameters (customer data): keep only name and code.
    const cause = value.cause as { code?: unknown } | undefined;
    const code = "code" in value ? value.code : cause?.code;
    const quotesQuery = "query" in value || "params" in value || /\bparams:/.test(value.message);
    return {
      name: value.name,
      ...(quotesQuery ? {} : { message: scrubPersonalData(value.message) }),
      ...(code ? { code } : {}),
    };
  }
  if (Array.isArray(value)) return depth > 4 ? "[…]" : value.map((item) => sanitize(item, depth + 1));
  if (value && typeof value === "object") {
    if (depth > 4) return "[…]";
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        SENSITIVE_KEY.test(key) && !ALLOWED_KEYS.has(key) ? "[redacted]" : sanitize(item, depth + 1),
      ]),
    );
  }
  return value;
}

export function formatLogLine(level: Level, event: string, fields: Fields = {}, service = "app"): string {
  return JSON.stringify({
    time: new Date().toISOString(),
    level,
    service,
    event,
    ...(sanitize(fields) as Fields),
  });
}

function write(level: Level, event: string, fields?: Fields) {
  const line = formatLogLine(level, event, fields);
  if (level === "error" || level === "warn") process.stderr.write(line + "\n");
  else process.stdout.write(line + "\n");
}

export const log = {
  debug: (event: string, fields?: Fields) => write("debug", event, fields),
  info: (event: string, fields?: Fields) => write("info", event, fields),
  warn: (event: string, fields?: Fields) => write("warn", event, fields),
  error: (event: string, fields?: Fields) => write("error", event, fields),
};
