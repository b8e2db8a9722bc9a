import { Agent, request as httpRequest, type IncomingHttpHeaders } from "node:http";

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Bytes of the request body written before the answer came. */
  bytesSent: number;
}

/**
 * A POST as a hostile client sends it, where fetch would not: a Content-Length that lies about what follows, or a
 * body streamed in chunks of undeclared length. Resolves with the server's answer as soon as it comes, whatever
 * is still unsent; a connection the server closes after answering is not an error.
 */
export function rawPost(
  url: string,
  {
    headers = {},
    body = Buffer.alloc(0),
    chunked,
  }: {
    headers?: Record<string, string>;
    body?: Buffer;
    /** Stream this many bytes in 64 KiB chunks with no Content-Length. */
    chunked?: number;
  },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let answered = false;
    // A kept-alive connection of its own, as browsers and curl ask for: with "Connection: close" (Node's default
    // without an agent) the server would close right after answering, and its reset could beat the answer here.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const request = httpRequest(url, { method: "POST", headers, agent }, (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", () => {});
      response.on("end", () => {
        request.destroy();
        agent.destroy();
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          bytesSent,
        });
      });
    });
    request.on("error", (error) => {
      agent.destroy();
      if (!answered) reject(error);
    });
    if (chunked === undefined) {
      bytesSent = body.length;
      request.end(body);
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, "a");
    const pump = () => {
      while (!answered && !request.destroyed && bytesSent < chunked) {
        bytesSent += chunk.length;
        if (!request.write(chunk)) return void request.once("drain", pump);
      }
      if (!answered && !request.destroyed) request.end();
    };
    pump();
  });
}
