import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { BODY_LIMIT_BYTES, bodyTooLarge, type Destination } from "./body-limits";
import { CONTROL_PREFIX, handleControlRequest } from "./controls";
import { ERROR_PAGE_PATH } from "./error-page";
import { faultReply, type FaultKind, type Target } from "./faults";
import {
  headerRecord,
  json,
  readBody,
  requestHead,
  send,
  sendAndClose,
  type RequestHead,
  type SandboxReply,
  type SandboxRequest,
  type SandboxResponse,
} from "./http";
import { writeJsonLine, type SandboxLog } from "./log";
import { loadDemoPlans, type Plan } from "./plans";
import { handleSaleRequest, isSalePath } from "./sale-endpoint";
import { SandboxState } from "./state";
import { claimedClientId, handleTokenRequest, TOKEN_PATH } from "./token-endpoint";
import { SANDBOX_DEFAULTS } from "./defaults";

export type { Plan } from "./plans";

export interface SandboxOptions {
  clientId?: string;
  clientSecret?: string;
  plans?: Plan[];
  tokenLifetimeSeconds?: number;
  log?: SandboxLog;
  /** The clock tokens are issued and checked by (a test shares its own with the client under test). */
  now?: () => number;
}

export interface Sandbox {
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

interface Answer {
  reply: SandboxReply;
  fault?: FaultKind;
}

const MAX_LOGGED_CLIENT_ID_LENGTH = 200;

function destinationOf(pathname: string): Destination {
  if (pathname.toLowerCase() === TOKEN_PATH) return "token";
  if (isSalePath(pathname)) return "sale";
  if (pathname.startsWith(CONTROL_PREFIX)) return "control";
  return "other";
}

function baseUrlOf(address: AddressInfo): string {
  const host =
    address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const clientId = options.clientId ?? SANDBOX_DEFAULTS.clientId;
  const clientSecret = options.clientSecret ?? SANDBOX_DEFAULTS.clientSecret;
  const plans = options.plans ?? loadDemoPlans();
  const log = options.log ?? writeJsonLine;
  const clock = options.now ?? Date.now;
  const state = new SandboxState(options.tokenLifetimeSeconds ?? 3600);
  let baseUrl = "";
  const availablePlans = () => plans.filter((plan) => !state.withdrawnPlanIds.has(plan.id.toLowerCase()));
  let shutdown = new AbortController();

  // The error_uri should point wherever the client reached us, which may differ from the address we bound.
  function errorPageUrl(request: RequestHead): string {
    const host = request.headers.host;
    const origin = host && /^[A-Za-z0-9.:[\]-]+$/.test(host) ? `http://${host}` : baseUrl;
    return `${origin}${ERROR_PAGE_PATH}`;
  }

  async function answerEndpoint(target: Target, request: SandboxRequest): Promise<Answer> {
    state.countRequest(target);
    if (target === "sale") {
      state.recordRequest({
        receivedAt: request.receivedAt.toISOString(),
        method: request.method,
        path: request.url,
        headers: headerRecord(request.headers),
        rawBody: request.rawBody,
      });
    }
    const latency = state.latencyMs[target];
    if (latency > 0) await delay(latency, undefined, { signal: shutdown.signal });

    const fault = state.takeFault(target);
    const reply = fault
      ? faultReply(fault)
      : target === "sale"
        ? handleSaleRequest(request, { state, plans: availablePlans(), now: new Date(clock()) })
        : handleTokenRequest(request, {
            state,
            clientId,
            clientSecret,
            errorPageUrl: errorPageUrl(request),
            now: new Date(clock()),
          });
    state.countResponse(target, reply === "hang" ? "timeout" : reply.status);
    return { reply, fault };
  }

  async function route(destination: Destination, request: SandboxRequest): Promise<Answer> {
    switch (destination) {
      case "token":
      case "sale":
        return answerEndpoint(destination, request);
      case "control":
        return { reply: handleControlRequest(request, { state, plans: availablePlans() }) };
      case "other":
        return { reply: json(404, { message: `Nenhum recurso em ${request.method} ${request.pathname}.` }) };
    }
  }

  // An oversized body is refused before any endpoint logic: no fault or latency is spent on it.
  function refuseBody(destination: Destination, head: RequestHead): SandboxResponse {
    if (destination === "token" || destination === "sale") {
      state.countRequest(destination);
      state.countResponse(destination, 413);
    }
    return bodyTooLarge(destination, errorPageUrl(head));
  }

  async function handle(
    incoming: IncomingMessage,
    response: ServerResponse,
    beforeReading?: () => void,
  ): Promise<void> {
    const startedAt = performance.now();
    const head = requestHead(incoming);
    const destination = destinationOf(head.pathname);
    const entry: Record<string, unknown> = { event: "request", method: head.method, path: head.pathname };
    try {
      const body = await readBody(incoming, BODY_LIMIT_BYTES[destination], beforeReading);
      const request = body.ok ? { ...head, rawBody: body.rawBody } : null;
      if (destination === "token") {
        const claimed = claimedClientId(request ?? head);
        if (claimed) entry.clientId = claimed.slice(0, MAX_LOGGED_CLIENT_ID_LENGTH);
      }
      if (!request) {
        entry.status = 413;
        sendAndClose(incoming, response, refuseBody(destination, head));
      } else {
        const { reply, fault } = await route(destination, request);
        if (fault) entry.fault = fault;
        entry.status = reply === "hang" ? null : reply.status;
        if (reply !== "hang") send(response, reply);
      }
    } catch (error) {
      if (shutdown.signal.aborted) return;
      entry.status = 500;
      entry.error = error instanceof Error ? error.message : String(error);
      send(response, json(500, { message: "O sandbox falhou ao tratar esta requisição." }));
    }
    entry.durationMs = Math.round(performance.now() - startedAt);
    log(entry);
  }

  const server = createServer((incoming, response) => void handle(incoming, response));
  // Answering "Expect: 100-continue" ourselves lets an oversized upload be refused before the client sends it.
  server.on("checkContinue", (incoming, response) => {
    void handle(incoming, response, () => response.writeContinue());
  });

  return {
    listen(port = 0, host = "127.0.0.1") {
      shutdown = new AbortController();
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          baseUrl = baseUrlOf(server.address() as AddressInfo);
          log({ event: "sandbox.start", url: baseUrl, clientId });
          resolve(baseUrl);
        });
      });
    },
    close() {
      if (!server.listening) return Promise.resolve();
      shutdown.abort();
      return new Promise((resolve, reject) => {
        server.close((error) => {
          log({ event: "sandbox.stop", url: baseUrl });
          if (error) reject(error);
          else resolve();
        });
        // Hanging "timeout" answers and keep-alive sockets would otherwise hold close() open forever.
        server.closeAllConnections();
      });
    },
  };
}
