import "server-only";
import type { Attributes } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-node";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { beforeExit } from "./lifecycle";
import { scrubPersonalData } from "./log";

// Attributes that carry a request's address: Next.js's own spans put the query string there, and a history
// search's query is a customer's CPF, name or e-mail.
/** The traces' `service.name` unless OTEL_SERVICE_NAME says otherwise. */
export const SERVICE_NAME_DEFAULT = "partner-sales";

const URL_ATTRIBUTES = new Set(["http.target", "http.url", "url.full", "url.query", "next.rsc"]);
// The app's own attributes (lib/tracing.ts) hold ids, statuses and outcomes, never a customer's data: left as
// they are (the scrubbing below would mistake a submissionId's digit groups for a phone number).
const OWN_ATTRIBUTE = /^partner_sales\./;

function scrubbed(attributes: Attributes): void {
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value !== "string" || OWN_ATTRIBUTE.test(key)) continue;
    let text = URL_ATTRIBUTES.has(key) ? value.replace(/\?.*$/s, "") : value;
    // An error's message may quote a failed query's values, or anything a customer typed: only where it was
    // thrown leaves (the stack's frames).
    if (key === "exception.message") text = "[redacted]";
    if (key === "exception.stacktrace")
      text = text
        .split("\n")
        .filter((line) => /^\s+at /.test(line))
        .join("\n");
    (attributes as Record<string, unknown>)[key] = scrubPersonalData(text);
  }
}

/**
 * A span as it may leave for the collector: its name and URL attributes without a query string, an error's
 * message gone (the status's and the exception's: Next.js copies the thrown message into both), and every other
 * text attribute scrubbed of CPFs, phone numbers and e-mails, as log lines are.
 */
export function scrubSpan(span: ReadableSpan): void {
  (span as { name: string }).name = span.name.replace(/\?.*$/s, "");
  if (span.status.message) (span.status as { message?: string }).message = "[redacted]";
  scrubbed(span.attributes);
  for (const event of span.events) if (event.attributes) scrubbed(event.attributes);
}

class ScrubbingExporter implements SpanExporter {
  constructor(private readonly next: SpanExporter) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter["export"]>[1]): void {
    for (const span of spans) scrubSpan(span);
    this.next.export(spans, done);
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * Traces over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (the standard variables: OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_SERVICE_NAME…). Next.js's own spans (the request, the route, the action) and the app's (lib/tracing.ts)
 * share one trace per request. The server flushes what is queued before it exits (scripts/server.mjs).
 */
export function startTracing(): void {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      "service.name": process.env.OTEL_SERVICE_NAME || SERVICE_NAME_DEFAULT,
    }),
    spanProcessors: [new BatchSpanProcessor(new ScrubbingExporter(new OTLPTraceExporter()))],
  });
  provider.register();
  beforeExit(() => provider.forceFlush());
}
