import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { finished } from "node:stream";

export interface SandboxRequest {
  receivedAt: Date;
  method: string;
  url: string;
  pathname: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

/** What is known of a request before its body is read. */
export type RequestHead = Omit<SandboxRequest, "rawBody">;

export type BodyRead = { ok: true; rawBody: string } | { ok: false };

export interface SandboxResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

// A reply is either a response or "hang": keep the socket open and never answer.
export type SandboxReply = SandboxResponse | "hang";

export function requestHead(incoming: IncomingMessage): RequestHead {
  const url = incoming.url ?? "/";
  return {
    receivedAt: new Date(),
    method: incoming.method ?? "GET",
    url,
    pathname: url.split("?")[0] ?? url,
    headers: incoming.headers,
  };
}

/**
 * Reads the body up to `limit` bytes. A Content-Length over the limit is refused before a byte is read; a body
 * that grows past the limit is dropped there and the stream left paused, so the caller can answer and close.
 * `beforeReading` runs once the body is going to be read (to send "100 Continue").
 */
export function readBody(
  incoming: IncomingMessage,
  limit: number,
  beforeReading?: () => void,
): Promise<BodyRead> {
  if (Number(incoming.headers["content-length"] ?? 0) > limit) {
    return Promise.resolve({ ok: false });
  }
  beforeReading?.();
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const stopWatching = finished(incoming, (error) => {
      stopWatching();
      incoming.off("data", onData);
      if (error) reject(error);
      else resolve({ ok: true, rawBody: Buffer.concat(chunks, size).toString("utf8") });
    });
    function onData(chunk: Buffer) {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      incoming.off("data", onData);
      incoming.pause();
      stopWatching();
      chunks = [];
      resolve({ ok: false });
    }
    incoming.on("data", onData);
  });
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

/**
 * Answers, then drops the connection once the answer is handed to the kernel: the rest of the body is never
 * read. With unread bytes still in the receive buffer the kernel resets the connection rather than closing it.
 */
export function sendAndClose(
  incoming: IncomingMessage,
  response: ServerResponse,
  reply: SandboxResponse,
): void {
  const socket = incoming.socket;
  response.once("finish", () => socket.destroy());
  send(response, { ...reply, headers: { ...reply.headers, connection: "close" } });
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
