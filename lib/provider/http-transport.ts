import "server-only";
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

// Kept-alive connections to the provider. Idle sockets close after 4 s, before the 5 s most servers (Node's
// default among them) wait, so a request is not written onto a socket the server is closing.
const IDLE_SOCKET_MS = 4_000;
// fetch's (undici's) connect timeout. A connection not made proves nothing was sent, so it carries undici's code,
// which the client counts as "nothing sent" (failed), unlike a timeout once the request is out (unknown).
const CONNECT_TIMEOUT_MS = 10_000;
// The provider's answers are a few hundred bytes. A misbehaving one must not fill the heap: past this size the
// answer is dropped unread and handed on with an empty body, which the callers treat as not-the-envelope.
export const MAX_ANSWER_BYTES = 64 * 1024;
const agents = {
  "http:": new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  "https:": new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
};

function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

function bodyText(body: RequestInit["body"]): string {
  if (body === undefined || body === null) return "";
  if (typeof body === "string" || body instanceof URLSearchParams) return body.toString();
  throw new TypeError("Only string and URLSearchParams bodies are sent to the provider.");
}

/** The request's signal timed out: how fetch and providerFetch report it. */
export const isTimeout = (error: unknown): boolean =>
  error instanceof DOMException && error.name === "TimeoutError";

/**
 * `fetch` for the provider's two endpoints, on node:http with kept-alive connections. Inside Next.js the global
 * fetch is wrapped for caching and tracing and costs about 2 ms more per call than this, on every sale. It keeps
 * fetch's contract where the client relies on it: a `Response`, the body read in full before it resolves, a
 * `TimeoutError` DOMException when the signal times out, and the socket error (ECONNREFUSED, …) as `cause`.
 */
export function providerFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(input instanceof Request ? input.url : input);
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new TypeError(`Unsupported protocol ${url.protocol}`));
  const body = Buffer.from(bodyText(init.body));
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  if (body.length > 0 || init.method === "POST") headers["content-length"] = String(body.length);
  // fetch always sent one; some providers' firewalls refuse requests without it.
  headers["user-agent"] ??= "partner-sales";
  const signal = init.signal ?? undefined;

  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const outgoing = send(url, { method: init.method ?? "GET", headers, agent }, (incoming) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (body: Buffer<ArrayBuffer>) => {
        signal?.removeEventListener("abort", onAbort);
        const status = incoming.statusCode ?? 0;
        const nullBody = status === 204 || status === 205 || status === 304;
        try {
          resolve(
            new Response(nullBody ? null : body, {
              status,
              statusText: incoming.statusMessage,
              headers: toHeaders(incoming.headers),
            }),
          );
        } catch (error) {
          reject(error); // a status fetch would refuse too (outside 200–599)
        }
      };
      let dropped = false;
      incoming.on("data", (chunk: Buffer) => {
        if (dropped) return;
        size += chunk.length;
        if (size <= MAX_ANSWER_BYTES) return void chunks.push(chunk);
        dropped = true;
        chunks.length = 0;
        incoming.destroy();
        finish(Buffer.alloc(0));
      });
      incoming.on("error", (error) => dropped || fail(error));
      incoming.on("end", () => dropped || finish(Buffer.concat(chunks)));
    });
    function fail(error: Error) {
      signal?.removeEventListener("abort", onAbort);
      reject(new TypeError("fetch failed", { cause: error }));
    }
    function onAbort() {
      outgoing.destroy();
      reject(signal!.reason);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    outgoing.on("socket", (socket) => {
      if (!socket.connecting) return; // a kept-alive socket, already connected
      const timer = setTimeout(() => {
        outgoing.destroy(
          Object.assign(new Error("Connect Timeout Error"), { code: "UND_ERR_CONNECT_TIMEOUT" }),
        );
      }, CONNECT_TIMEOUT_MS);
      socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => clearTimeout(timer));
      socket.once("close", () => clearTimeout(timer));
    });
    outgoing.on("error", (error) => {
      if (!signal?.aborted) fail(error);
    });
    outgoing.end(body);
  });
}
