import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { expect } from "@playwright/test";
import { rawPost, type RawAnswer } from "./raw-http";

const JSON_TYPE = { "content-type": "application/json" };
const FORM_TYPE = { "content-type": "application/x-www-form-urlencoded" };
const MB = 1024 * 1024;

/** A request as an attacker or a careless integrator sends it, and the status the app documents for it. */
export interface HostileRequest {
  name: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  chunked?: number;
  status: number;
  error: string;
  /** Reaches the portal token check, so it needs a portal configured (404 token_sign_in_off otherwise). */
  portalSignIn?: true;
}

const jsonObject = Buffer.from(JSON.stringify({ customerName: "Maria Souza" }));
const deepArray = (depth: number) => Buffer.from("[".repeat(depth) + "]".repeat(depth));

/** Every transport-level shape of wrong input, at every entry point that takes a body. */
export function transportCases(): HostileRequest[] {
  const cases: HostileRequest[] = [];
  for (const path of ["/api/sales", "/api/embed/session"]) {
    cases.push(
      {
        name: `${path}: declared 50 MB, nothing sent`,
        path,
        headers: { ...JSON_TYPE, "content-length": String(50 * MB) },
        status: 413,
        error: "payload_too_large",
      },
      {
        name: `${path}: chunked 20 MB`,
        path,
        headers: JSON_TYPE,
        chunked: 20 * MB,
        status: 413,
        error: "payload_too_large",
      },
      {
        name: `${path}: not JSON`,
        path,
        headers: JSON_TYPE,
        body: Buffer.from("{customerName:"),
        status: 400,
        error: "invalid_json",
      },
      {
        name: `${path}: invalid UTF-8`,
        path,
        headers: JSON_TYPE,
        body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
        status: 400,
        error: "invalid_json",
      },
      {
        name: `${path}: a JSON array 8,000 deep`,
        path,
        headers: JSON_TYPE,
        body: deepArray(8_000),
        status: 400,
        error: "invalid_json",
      },
      {
        name: `${path}: a JSON string`,
        path,
        headers: JSON_TYPE,
        body: Buffer.from('"x"'),
        status: 400,
        error: "invalid_json",
      },
      {
        name: `${path}: JSON null`,
        path,
        headers: JSON_TYPE,
        body: Buffer.from("null"),
        status: 400,
        error: "invalid_json",
      },
    );
    for (const contentType of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/xml",
      "application/json; charset=latin1",
      "application/jsonx",
    ]) {
      cases.push({
        name: `${path}: ${contentType}`,
        path,
        headers: { "content-type": contentType },
        body: jsonObject,
        status: 415,
        error: "unsupported_media_type",
      });
    }
    cases.push({
      name: `${path}: no content type`,
      path,
      headers: {},
      body: jsonObject,
      status: 415,
      error: "unsupported_media_type",
    });
  }
  // The portal token field, every JSON type and an overlong one: refused as a token, never a crash.
  for (const token of [42, true, null, [], { jwt: "x" }, "x".repeat(15_000), "a.b\u0000.c"]) {
    cases.push({
      name: `/api/embed/session: token ${JSON.stringify(token).slice(0, 20)}`,
      path: "/api/embed/session",
      headers: JSON_TYPE,
      body: Buffer.from(JSON.stringify({ token })),
      status: 401,
      error: "token_malformed",
      ...(typeof token === "string" ? { portalSignIn: true as const } : {}),
    });
  }
  // Auth.js's client header would make a refused token's signIn() return as if it had gone through.
  cases.push({
    name: "/api/embed/session: X-Auth-Return-Redirect with a forged token",
    path: "/api/embed/session",
    headers: { ...JSON_TYPE, "x-auth-return-redirect": "1" },
    body: Buffer.from(JSON.stringify({ token: "eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln" })),
    status: 400,
    error: "header_refused",
  });
  const auth = "/api/auth/callback/credentials";
  cases.push(
    {
      name: `${auth}: declared 50 MB`,
      path: auth,
      headers: { ...FORM_TYPE, "content-length": String(50 * MB) },
      status: 413,
      error: "payload_too_large",
    },
    {
      name: `${auth}: chunked 20 MB`,
      path: auth,
      headers: FORM_TYPE,
      chunked: 20 * MB,
      status: 413,
      error: "payload_too_large",
    },
    {
      name: `${auth}: text/plain`,
      path: auth,
      headers: { "content-type": "text/plain" },
      body: Buffer.from("email=x"),
      status: 415,
      error: "unsupported_media_type",
    },
  );
  // Server actions post to pages: the proxy refuses a declared size over the action limit and chunked bodies.
  for (const path of ["/", "/sign-in", "/embed", "/sales/00000000-0000-4000-8000-000000000000"]) {
    const action = { "next-action": "0".repeat(42), "content-type": "text/plain;charset=UTF-8" };
    cases.push(
      {
        name: `${path} action: 1 MB sent`,
        path,
        headers: action,
        body: Buffer.alloc(MB, "a"),
        status: 413,
        error: "payload_too_large",
      },
      {
        name: `${path} action: chunked 2 MB`,
        path,
        headers: action,
        chunked: 2 * MB,
        status: 411,
        error: "length_required",
      },
    );
  }
  return cases;
}

/** A Cookie header from a browser context's or request context's cookies. */
export const cookieHeader = (cookies: { name: string; value: string }[]) =>
  cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");

export async function send(baseUrl: string, request: HostileRequest, cookie?: string): Promise<RawAnswer> {
  return rawPost(`${baseUrl}${request.path}`, {
    headers: { ...request.headers, ...(cookie ? { cookie } : {}) },
    body: request.body,
    chunked: request.chunked,
  });
}

// English a person must never read: zod's and Next.js's defaults.
const ENGLISH = /\b(expected|received|invalid input|required|must be|body)\b/i;

/** The documented JSON error shape: a stable code and a pt-BR message. */
export function expectErrorBody(answer: RawAnswer, error: string) {
  expect(answer.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { error: string; message: string };
  expect(body.error).toBe(error);
  expect(body.message.length).toBeGreaterThan(10);
  expect(body.message).not.toMatch(ENGLISH);
}

export function expectPortuguese(message: string | undefined) {
  expect(message, "a pt-BR message").toBeTruthy();
  expect(message).not.toMatch(ENGLISH);
}

/** The pid listening on a TCP port, from /proc (Linux); undefined where there is no /proc. */
export function pidListeningOn(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      const localPort = Number.parseInt(columns[1]?.split(":")[1] ?? "", 16);
      if (localPort === port && columns[3] === "0A") inodes.add(columns[9]!);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let descriptors: string[];
    try {
      descriptors = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const descriptor of descriptors) {
      try {
        const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${descriptor}`));
        if (socket && inodes.has(socket[1]!)) return Number(pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}
