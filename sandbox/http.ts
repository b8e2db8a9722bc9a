import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";

export const MAX_BODY_BYTES = 1024 * 1024;

export interface SandboxRequest {
  receivedAt: Date;
  method: string;
  url: string;
  pathname: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  bodyTooLarge: boolean;
}

export interface SandboxResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

// A reply is either a response or "hang": keep the socket open and never answer.
export type SandboxReply = SandboxResponse | "hang";

export async function readRequest(request: IncomingMessage): Promise<SandboxRequest> {
  const receivedAt = new Date();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  const url = request.url ?? "/";
  return {
    receivedAt,
    method: request.method ?? "GET",
    url,
    pathname: url.split("?")[0] ?? url,
    headers: request.headers,
    rawBody: Buffer.concat(chunks).toString("utf8"),
    bodyTooLarge: size > MAX_BODY_BYTES,
  };
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): SandboxResponse {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    body: JSON.stringify(value),
  };
}

export function text(status: number, contentType: string, body: string): SandboxResponse {
  return { status, headers: { "content-type": contentType }, body };
}

export function send(response: ServerResponse, reply: SandboxResponse): void {
  if (response.destroyed || response.writableEnded) return;
  response.writeHead(reply.status, {
    ...reply.headers,
    "content-length": String(Buffer.byteLength(reply.body)),
  });
  response.end(reply.body);
}

/** The media type of a Content-Type header, lower case and without parameters ("" when absent). */
export function mediaType(headers: IncomingHttpHeaders): string {
  return (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

export function headerRecord(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value]],
    ),
  );
}
