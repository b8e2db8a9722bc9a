import "server-only";
import http from "node:http";
import https from "node:https";
import { isIP, type BlockList } from "node:net";
import { Webhook } from "standardwebhooks";
import { addressAllowed, guardedLookup } from "./address-guard";

/** One event to one endpoint, as Standard Webhooks sends it. */
export interface OutgoingWebhook {
  url: string;
  /** `webhook-id`: the event's, the same in every attempt and replay. */
  id: string;
  timestamp: Date;
  body: string;
  /** Each secret signs (`whsec_…`): the current one, and the previous during a rotation's overlap. */
  secrets: readonly string[];
}

export interface SendLimits {
  timeoutMs: number;
  /** Of the receiver's answer we read at most this much, and nothing of it is kept. */
  maxResponseBytes: number;
  allowed: BlockList;
  /** `http://` endpoints (the sandbox, a developer's `webhooks listen`); live mode sends only over HTTPS. */
  allowHttp: boolean;
}

export interface SendResult {
  durationMs: number;
  /** The receiver's status, or null when none came. */
  statusCode: number | null;
  /** Why it does not count as delivered: `timeout`, `refused_address`, `redirect`, `status_500`, `too_large`… */
  error: string | null;
}

/** Connections kept per receiver (host and port); the dispatcher starts no more attempts than this per endpoint. */
export const SOCKETS_PER_RECEIVER = 64;

/**
 * How long a kept connection may sit idle before it is closed here: under the 5 s after which Node's servers (and
 * many proxies) close theirs, so that an attempt is not written into a connection the receiver is closing (it
 * would fail as `connection_reset` and wait for its retry).
 */
const IDLE_SOCKET_MS = 4_000;

const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: SOCKETS_PER_RECEIVER, timeout: IDLE_SOCKET_MS }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: SOCKETS_PER_RECEIVER, timeout: IDLE_SOCKET_MS }),
};

/** The `webhook-signature` header: one `v1,<signature>` per secret, space-separated (Standard Webhooks). */
export function signatureHeader(
  message: Pick<OutgoingWebhook, "id" | "timestamp" | "body" | "secrets">,
): string {
  return message.secrets
    .map((secret) => new Webhook(secret).sign(message.id, message.timestamp, message.body))
    .join(" ");
}

/**
 * One attempt: a POST, signed, to the endpoint's URL, over a connection whose address the guard accepted (no
 * loopback, private or metadata address unless allowed), within `timeoutMs` from start to the answer's end,
 * reading at most `maxResponseBytes` of it, following no redirect. 2xx is delivered; anything else is retried.
 */
export function sendWebhook(message: OutgoingWebhook, limits: SendLimits): Promise<SendResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): SendResult => ({
    durationMs: Math.round(performance.now() - started),
    statusCode,
    error,
  });
  let url: URL;
  try {
    url = new URL(message.url);
  } catch {
    return Promise.resolve(done(null, "bad_url"));
  }
  if (url.protocol !== "https:" && !(limits.allowHttp && url.protocol === "http:")) {
    return Promise.resolve(done(null, "scheme_refused"));
  }
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && !addressAllowed(literal, limits.allowed)) {
    return Promise.resolve(done(null, "refused_address"));
  }
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = transport.request(
      url,
      {
        method: "POST",
        agent: agents[url.protocol as "http:" | "https:"],
        lookup: guardedLookup(limits.allowed),
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(message.body),
          "user-agent": "PartnerSales-Webhooks/1",
          "webhook-id": message.id,
          "webhook-timestamp": String(Math.floor(message.timestamp.getTime() / 1000)),
          "webhook-signature": signatureHeader(message),
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > limits.maxResponseBytes) {
            // Enough: the status is what counts; the connection is not reused.
            response.destroy();
            request.destroy();
            finish(done(status, status >= 200 && status < 300 ? null : `status_${status}`));
          }
        });
        response.on("end", () =>
          finish(
            done(
              status,
              status >= 200 && status < 300
                ? null
                : status >= 300 && status < 400
                  ? "redirect"
                  : `status_${status}`,
            ),
          ),
        );
        response.on("error", () => finish(done(status, "answer_cut")));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish(done(null, "timeout"));
    }, limits.timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => {
      finish(done(null, error.code === "EWEBHOOKADDRESS" ? "refused_address" : errorName(error)));
    });
    request.end(message.body);
  });
}

/** A connection error as a short, stable word for the attempt's record and the metric. */
function errorName(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "ECONNREFUSED":
      return "connection_refused";
    case "ECONNRESET":
      return "connection_reset";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "dns";
    default:
      return error.code?.startsWith("ERR_TLS") || error.code?.includes("CERT") ? "tls" : "connection_failed";
  }
}
