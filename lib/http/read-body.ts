import type { RequestErrorCode } from "@/lib/errors";

/** What each entry point may receive, by its job: a sale is a few hundred bytes, a portal token a few kilobytes. */
export const BODY_LIMITS = {
  sale: 16 * 1024,
  embedSession: 16 * 1024,
  auth: 8 * 1024,
  /** Server actions (the sale form, sign-in, settling a sale): next.config.ts gives Next.js the same number. */
  serverAction: 32 * 1024,
} as const;

/** A declared Content-Length over `maxBytes` (or one that is not a number): refused before a byte is read. */
export function declaresTooLarge(headers: Headers, maxBytes: number): boolean {
  const declared = headers.get("content-length");
  return declared !== null && !(/^\d+$/.test(declared) && Number(declared) <= maxBytes);
}

// The rest of a refused body is never read. The connection is let go shortly after the answer, not at once: a
// client still sending is held by flow control and reads the answer first (an immediate close could reset it
// before it does), then is cut off rather than kept until Node's request timeout (five minutes).
const LINGER_MS = 2_000;

function letGo(body: { cancel(): Promise<void> } | null) {
  if (body) setTimeout(() => void body.cancel().catch(() => {}), LINGER_MS).unref();
}

type BodyResult<T> = { ok: true; value: T } | { ok: false; code: RequestErrorCode };

/**
 * The body, read as it arrives and given up at `maxBytes`: a declared Content-Length over the limit is refused
 * before a byte is read, and reading a chunked body stops at the limit, so no request holds more than that in memory.
 */
export async function readBoundedBody(
  request: Request,
  maxBytes: number,
): Promise<BodyResult<Uint8Array<ArrayBuffer>>> {
  if (declaresTooLarge(request.headers, maxBytes)) {
    letGo(request.body);
    return { ok: false, code: "payload_too_large" };
  }
  if (!request.body) return { ok: true, value: new Uint8Array() };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      letGo(reader);
      return { ok: false, code: "payload_too_large" };
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, value: body };
}

/** The media type of a Content-Type header, lower case, without parameters ("" when absent). */
export function mediaTypeOf(value: string | null): string {
  return value?.split(";")[0]?.trim().toLowerCase() ?? "";
}

/** `application/json`, with at most a UTF-8 charset parameter: JSON (RFC 8259) has no other encoding. */
export function isJsonContentType(value: string | null): boolean {
  if (mediaTypeOf(value) !== "application/json") return false;
  const parameters = value!
    .split(";")
    .slice(1)
    .map((part) => part.trim().toLowerCase());
  return parameters.every((parameter) => parameter === "" || /^charset="?utf-8"?$/.test(parameter));
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A JSON object from a bounded body: 415 for another media type, 413 past the limit, 400 for anything else. */
export async function readJsonObject(
  request: Request,
  maxBytes: number,
): Promise<BodyResult<Record<string, unknown>>> {
  if (!isJsonContentType(request.headers.get("content-type")))
    return { ok: false, code: "unsupported_media_type" };
  const body = await readBoundedBody(request, maxBytes);
  if (!body.ok) return body;
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(body.value));
  } catch {
    return { ok: false, code: "invalid_json" };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { ok: false, code: "invalid_json" };
  return { ok: true, value: value as Record<string, unknown> };
}
