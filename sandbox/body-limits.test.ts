import { request, type ClientRequest } from "node:http";
import { describe, expect, it } from "vitest";
import type { Stats } from "./state";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  control,
  issueToken,
  postSale,
  requestToken,
  SALE_PATH,
  TOKEN_PATH,
  validSale,
  type RunningSandbox,
} from "./test-support";
import { sandboxPerFile } from "./sandbox-per-file";

// Written out rather than imported: the tests pin the limits.
const TOKEN_LIMIT = 8 * 1024;
const SALE_LIMIT = 64 * 1024;
const CONTROL_LIMIT = 64 * 1024;
const OTHER_LIMIT = 8 * 1024;
const FORM = "application/x-www-form-urlencoded";

let sandbox: RunningSandbox;
let url: string;

sandboxPerFile((running) => {
  sandbox = running;
  url = running.url;
});

/** What a client sees of one request; an error may follow the response when the server resets the connection. */
interface Observed {
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  body?: string;
  errorCode?: string;
  continued: boolean;
}

/** Sends the request with node:http (no pooling) and settles on the full response or on the first error. */
function observe(
  path: string,
  headers: Record<string, string>,
  write: (outgoing: ClientRequest) => void,
): Promise<Observed> {
  return new Promise((resolve) => {
    const observed: Observed = { continued: false };
    const outgoing = request(`${url}${path}`, { method: "POST", headers, agent: false });
    outgoing.on("continue", () => (observed.continued = true));
    outgoing.on("response", (response) => {
      observed.status = response.statusCode;
      observed.headers = response.headers;
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ ...observed, body }));
      response.on("error", (error: NodeJS.ErrnoException) => resolve({ ...observed, errorCode: error.code }));
    });
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      observed.errorCode ??= error.code;
      resolve(observed);
    });
    write(outgoing);
  });
}

/** A chunked body (no Content-Length) written as several write() calls. */
function postChunked(path: string, chunks: string[], contentType: string, extraHeaders = {}) {
  return observe(path, { "content-type": contentType, ...extraHeaders }, (outgoing) => {
    for (const chunk of chunks) outgoing.write(chunk);
    outgoing.end();
  });
}

/** Streams a chunked body with no end, as a misbehaving client would, until the server answers or drops it. */
function streamEndlessly(path: string, contentType: string) {
  return observe(path, { "content-type": contentType }, (outgoing) => {
    let answered = false;
    outgoing.once("response", () => (answered = true));
    const chunk = "x".repeat(4096);
    const pump = () => {
      while (!answered && !outgoing.destroyed) {
        if (!outgoing.write(chunk)) return void outgoing.once("drain", pump);
      }
    };
    pump();
  });
}

function splitInto(body: string, parts: number): string[] {
  const size = Math.ceil(body.length / parts);
  return Array.from({ length: parts }, (_, index) => body.slice(index * size, (index + 1) * size));
}

/** A valid token request padded with an extra parameter to exactly `bytes` bytes. */
function paddedCredentials(bytes: number): string {
  const form = `${new URLSearchParams({ grant_type: "client_credentials", client_id: CLIENT_ID, client_secret: CLIENT_SECRET })}&pad=`;
  return form + "x".repeat(bytes - form.length);
}

/** A valid sale padded with trailing JSON whitespace to exactly `bytes` bytes. */
function paddedSale(bytes: number): string {
  const sale = JSON.stringify(validSale());
  return sale + " ".repeat(bytes - Buffer.byteLength(sale));
}

const parsed = (observed: Observed) => JSON.parse(observed.body ?? "") as Record<string, unknown>;
const stats = async () => (await control<Stats>(url, "GET", "stats")).body;

function expectTokenTooLarge(body: unknown) {
  expect(body).toEqual({
    error: "invalid_request",
    error_description: `O corpo da requisição não pode passar de ${TOKEN_LIMIT} bytes.`,
    error_uri: `${url}/__sandbox/errors#invalid_request`,
  });
}

function expectSaleTooLarge(body: unknown) {
  expect(body).toEqual({
    data: false,
    message: `O corpo da requisição não pode passar de ${SALE_LIMIT} bytes.`,
    success: false,
    total: null,
  });
}

describe("a declared Content-Length over the limit", () => {
  it("is refused with the token endpoint's OAuth error, and no token is issued", async () => {
    const response = await fetch(`${url}${TOKEN_PATH}`, {
      method: "POST",
      headers: { "content-type": FORM },
      body: paddedCredentials(TOKEN_LIMIT + 1),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expectTokenTooLarge(await response.json());
    expect(await stats()).toMatchObject({ tokenRequests: 1, tokensIssued: 0, tokenResponses: { "413": 1 } });
  });

  it("is refused with the sale envelope even for a valid sale, which is neither accepted nor recorded", async () => {
    const token = await issueToken(url);
    const response = await postSale(url, token, paddedSale(SALE_LIMIT + 1));
    expect(response.status).toBe(413);
    expect(response.headers.get("connection")).toBe("close");
    expectSaleTooLarge(await response.json());
    expect(await stats()).toMatchObject({ saleRequests: 1, salesAccepted: 0, saleResponses: { "413": 1 } });
    expect((await control(url, "GET", "sales")).body).toEqual([]);
    expect((await control(url, "GET", "requests")).body).toEqual([]);
  });

  it("is refused before the token is checked", async () => {
    const response = await postSale(url, null, paddedSale(SALE_LIMIT + 1));
    expect(response.status).toBe(413);
    expectSaleTooLarge(await response.json());
  });

  it.each([
    ["a control", "/__sandbox/faults", CONTROL_LIMIT],
    ["an unknown path", "/core/other", OTHER_LIMIT],
  ])("is refused with {message} on %s", async (_label, path, limit) => {
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: " ".repeat(limit + 1),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      message: `O corpo da requisição não pode passar de ${limit} bytes.`,
    });
  });

  it("is answered at once, without waiting for a body that never comes", async () => {
    const observed = await observe(
      TOKEN_PATH,
      { "content-type": FORM, "content-length": String(1024 * 1024 * 1024) },
      (outgoing) => outgoing.flushHeaders(),
    );
    expect(observed.status).toBe(413);
    expect(observed.headers?.connection).toBe("close");
    expectTokenTooLarge(parsed(observed));
  });

  it("is refused without 100 Continue, so a client that asks first never sends the body", async () => {
    const token = await issueToken(url);
    const observed = await observe(
      SALE_PATH,
      {
        "content-type": "application/json",
        "content-length": String(SALE_LIMIT + 1),
        authorization: `Bearer ${token}`,
        expect: "100-continue",
      },
      (outgoing) => outgoing.flushHeaders(),
    );
    expect(observed).toMatchObject({ status: 413, continued: false });
    expectSaleTooLarge(parsed(observed));
  });

  it("still gets 100 Continue when it fits", async () => {
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    }).toString();
    const observed = await observe(
      TOKEN_PATH,
      { "content-type": FORM, "content-length": String(body.length), expect: "100-continue" },
      (outgoing) => {
        outgoing.flushHeaders();
        outgoing.once("continue", () => outgoing.end(body));
      },
    );
    expect(observed).toMatchObject({ status: 200, continued: true });
  });
});

describe("a body exactly at the limit", () => {
  it("is accepted by the token endpoint, declared or chunked", async () => {
    const body = paddedCredentials(TOKEN_LIMIT);
    expect(Buffer.byteLength(body)).toBe(TOKEN_LIMIT);
    const declared = await fetch(`${url}${TOKEN_PATH}`, {
      method: "POST",
      headers: { "content-type": FORM },
      body,
    });
    expect(declared.status).toBe(200);
    const chunked = await postChunked(TOKEN_PATH, splitInto(body, 5), FORM);
    expect(chunked.status).toBe(200);
  });

  it("is accepted by the sale endpoint, declared or chunked", async () => {
    const token = await issueToken(url);
    const declared = paddedSale(SALE_LIMIT);
    expect(Buffer.byteLength(declared)).toBe(SALE_LIMIT);
    const response = await postSale(url, token, declared);
    expect(response.status).toBe(200);
    expect(response.headers.get("connection")).not.toBe("close");

    const chunked = await postChunked(SALE_PATH, splitInto(paddedSale(SALE_LIMIT), 8), "application/json", {
      authorization: `Bearer ${token}`,
    });
    expect(chunked.status).toBe(200);
    const { body: recorded } = await control<{ headers: Record<string, string> }[]>(url, "GET", "requests");
    expect(recorded[1]!.headers).toMatchObject({ "transfer-encoding": "chunked" });
    expect(recorded[1]!.headers).not.toHaveProperty("content-length");
  });

  it("reaches an unknown path's 404 rather than a 413", async () => {
    const response = await fetch(`${url}/core/other`, { method: "POST", body: " ".repeat(OTHER_LIMIT) });
    expect(response.status).toBe(404);
  });
});

describe("a chunked body that grows past the limit", () => {
  it("is cut off with a 413 one byte over, and the server answers the next request", async () => {
    const observed = await postChunked(TOKEN_PATH, splitInto(paddedCredentials(TOKEN_LIMIT + 1), 5), FORM);
    expect(observed.status).toBe(413);
    expect(observed.headers?.connection).toBe("close");
    expectTokenTooLarge(parsed(observed));

    const next = await requestToken(url, {
      grant_type: "client_credentials",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    expect(next.status).toBe(200);
    expect(await stats()).toMatchObject({ tokensIssued: 1, tokenResponses: { "200": 1, "413": 1 } });
  });

  it("is cut off on the sale endpoint with the envelope", async () => {
    const token = await issueToken(url);
    const observed = await postChunked(
      SALE_PATH,
      splitInto(paddedSale(SALE_LIMIT + 1), 8),
      "application/json",
      { authorization: `Bearer ${token}` },
    );
    expect(observed.status).toBe(413);
    expectSaleTooLarge(parsed(observed));
    expect(await stats()).toMatchObject({ salesAccepted: 0 });
  });

  it("logs the request line with status 413, and the client id of a Basic header", async () => {
    const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64");
    await postChunked(TOKEN_PATH, [`grant_type=client_credentials&pad=${"x".repeat(TOKEN_LIMIT)}`], FORM, {
      authorization: `Basic ${basic}`,
    });
    const entry = sandbox.logs.filter((line) => line.event === "request").at(-1);
    expect(entry).toEqual({
      event: "request",
      method: "POST",
      path: TOKEN_PATH,
      clientId: CLIENT_ID,
      status: 413,
      durationMs: expect.any(Number),
    });
    expect(JSON.stringify(sandbox.logs)).not.toContain(CLIENT_SECRET);
  });

  it("keeps the server up under 50 clients streaming endless bodies at once", async () => {
    const before = sandbox.logs.length;
    const observed = await Promise.all([
      ...Array.from({ length: 25 }, () => streamEndlessly(TOKEN_PATH, FORM)),
      ...Array.from({ length: 25 }, () => streamEndlessly(SALE_PATH, "application/json")),
    ]);

    // The server answers 413 and resets the connection while the client is still writing; whether the client
    // reads the 413 before its next write fails on the reset is a race, so either outcome is allowed here.
    for (const each of observed) {
      if (each.status === undefined) expect(["ECONNRESET", "EPIPE"]).toContain(each.errorCode);
      else expect(each.status).toBe(413);
    }
    const logged = sandbox.logs.slice(before).filter((entry) => entry.event === "request");
    expect(logged.map((entry) => entry.status)).toEqual(Array<number>(50).fill(413));
    expect(await stats()).toMatchObject({ tokenResponses: { "413": 25 }, saleResponses: { "413": 25 } });

    const token = await issueToken(url);
    expect((await postSale(url, token, validSale())).status).toBe(200);
  });
});
