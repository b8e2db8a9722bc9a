import { context, propagation, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";

/**
 * Spans of the sale's path, for OpenTelemetry (set up in lib/tracing-setup.ts when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set; without it the API's no-op tracer makes this nearly free). Attributes name the sale by its submissionId
 * and say what happened; never a customer's data. A failure is marked by its error's name (`error.type`), not its
 * message, which may quote a query's parameters (the exporter drops status messages: lib/tracing-setup.ts).
 */
const tracer = () => trace.getTracer("partner-sales");

export const SUBMISSION_ID = "partner_sales.submission_id";

/** The W3C traceparent of the current span, to continue its trace elsewhere later (a webhook's delivery). */
export function currentTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** A span under the trace `traceparent` names (or a new trace without one): work done later for an earlier request. */
export function inSpanUnder<T>(
  traceparent: string | null,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  const parent = traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();
  return context.with(parent, () => inSpan(name, attributes, work));
}

export function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.setAttribute("error.type", error instanceof Error ? error.name : "error");
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds what became known along the way (an outcome, a status) to the current span. */
export function noteOnSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}
