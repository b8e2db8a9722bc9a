import { randomUUID } from "node:crypto";
import { SpanStatusCode, type Span } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import { describe, expect, it } from "vitest";
import { scrubSpan } from "./tracing-setup";

function finishedSpan(build: (span: Span) => void) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const span = provider.getTracer("test").startSpan("GET /sales?q=529.982.247-25");
  build(span);
  span.end();
  return exporter.getFinishedSpans()[0]!;
}

describe("scrubSpan", () => {
  it("keeps the app's own attributes whole: every submissionId, whatever its digits", () => {
    // Ids whose digit groups look like a phone number to the log scrubber (about 1 in 11 random ones).
    const ids = ["12345678-9012-4345-8678-901234567890", ...Array.from({ length: 200 }, () => randomUUID())];
    for (const id of ids) {
      const span = finishedSpan((span) => span.setAttribute("partner_sales.submission_id", id));
      scrubSpan(span);
      expect(span.attributes["partner_sales.submission_id"]).toBe(id);
    }
  });

  it("drops query strings, an error's message wherever Next.js copied it, and customers' data in other text", () => {
    const thrown = new Error(
      'Failed query: insert into "sales" values ($1) params: 52998224725,Maria Souza,maria@example.com',
    );
    const span = finishedSpan((span) => {
      span.setAttribute("http.target", "/sales?q=Maria+Souza");
      span.setAttribute("next.route", "/sales");
      span.setAttribute("note", "ligar para (31) 98765-4321 ou maria@example.com");
      span.recordException(thrown);
      span.setStatus({ code: SpanStatusCode.ERROR, message: thrown.message });
    });

    scrubSpan(span);

    expect(span.name).toBe("GET /sales");
    expect(span.attributes["http.target"]).toBe("/sales");
    expect(span.attributes["next.route"]).toBe("/sales");
    expect(span.attributes.note).toBe("ligar para [redacted] ou [redacted]");
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "[redacted]" });
    const [exception] = span.events;
    expect(exception!.attributes!["exception.message"]).toBe("[redacted]");
    expect(exception!.attributes!["exception.stacktrace"]).toMatch(/^\s+at /);
    const everything = JSON.stringify({
      name: span.name,
      attributes: span.attributes,
      status: span.status,
      events: span.events,
    });
    for (const value of ["52998224725", "Maria", "maria@example.com", "98765-4321", "q="]) {
      expect(everything).not.toContain(value);
    }
  });
});
