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
import { scrubPersonalData } from "./log";

// Attributes that carry a request's address: Next.js's own spans put the query string there, and a history
// search's query is a customer's CPF, name or e-mail.
const URL_ATTRIBUTES = new Set(["http.target", "http.url", "url.full", "url.query", "next.rsc"]);

function scrubbed(attributes: Attributes): void {
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value !== "string") continue;
    const text = URL_ATTRIBUTES.has(key) ? value.replace(/\?.*$/s, "") : value;
    (attributes as Record<string, unknown>)[key] = scrubPersonalData(text);
  }
}

/**
 * What leaves for the collector: every span's URL attributes without their query string, and every text
 * attribute (an exception's message among them) scrubbed of CPFs, phone numbers and e-mails, as log lines are.
 */
class ScrubbingExporter implements SpanExporter {
  constructor(private readonly next: SpanExporter) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter["export"]>[1]): void {
    for (const span of spans) {
      (span as { name: string }).name = span.name.replace(/\?.*$/s, "");
      scrubbed(span.attributes);
      for (const event of span.events) if (event.attributes) scrubbed(event.attributes);
    }
    this.next.export(spans, done);
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush?.() ?? Promise.resolve();
  }
}

const FLUSH = Symbol.for("partner-sales.before-exit");

/**
 * Traces over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (the standard variables: OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_SERVICE_NAME…). Next.js's own spans (the request, the route, the action) and the app's (lib/tracing.ts)
 * share one trace per request. The server flushes what is queued before it exits (scripts/server.mjs).
 */
export function startTracing(): void {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": process.env.OTEL_SERVICE_NAME || "partner-sales" }),
    spanProcessors: [new BatchSpanProcessor(new ScrubbingExporter(new OTLPTraceExporter()))],
  });
  provider.register();
  (globalThis as Record<symbol, unknown>)[FLUSH] = () => provider.forceFlush();
}
