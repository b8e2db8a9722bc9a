import { readFileSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { IssuedCertificate } from "./certificates";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, string | number | boolean>;
  /** From the span's start to its end. */
  durationMs: number;
}

export interface OtlpReceiver {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to (the exporter adds /v1/traces). */
  url: string;
  spans(): ReceivedSpan[];
  /** Every request body as it came, to search for what must not be there. */
  raw(): string;
  close(): Promise<void>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
interface OtlpBody {
  resourceSpans?: {
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        startTimeUnixNano?: string;
        endTimeUnixNano?: string;
        attributes?: { key: string; value: OtlpValue }[];
      }[];
    }[];
  }[];
}

const valueOf = (value: OtlpValue) =>
  value.stringValue ?? value.boolValue ?? value.doubleValue ?? Number(value.intValue ?? Number.NaN);

/**
 * A stand-in OpenTelemetry collector: OTLP/HTTP with JSON bodies on 127.0.0.1, kept in memory. With `tls` (a
 * certificate for localhost) it listens over https, at https://localhost:<port>.
 */
export async function startOtlpReceiver({ tls }: { tls?: IssuedCertificate } = {}): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const received: ReceivedSpan[] = [];
  const handle: RequestListener = (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (
        request.method !== "POST" ||
        request.url !== "/v1/traces" ||
        !/json/.test(request.headers["content-type"] ?? "")
      ) {
        response.writeHead(415).end();
        return;
      }
      bodies.push(text);
      const body = JSON.parse(text) as OtlpBody;
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            received.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              durationMs:
                Number(BigInt(span.endTimeUnixNano ?? 0) - BigInt(span.startTimeUnixNano ?? 0)) / 1e6,
              attributes: Object.fromEntries(
                (span.attributes ?? []).map(({ key, value }) => [key, valueOf(value)]),
              ),
            });
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  };
  const server: Server = tls
    ? createHttpsServer({ cert: readFileSync(tls.certificateFile), key: readFileSync(tls.keyFile) }, handle)
    : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    spans: () => [...received],
    raw: () => bodies.join("\n"),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
