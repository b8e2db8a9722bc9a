import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { NextConfig } from "next";
import {
  BODY_LIMITS,
  declaresTooLarge,
  isJsonContentType,
  readBoundedBody,
  readJsonObject,
} from "./read-body";

const streamOf = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

const post = (body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) =>
  new Request("http://app.test/api", { method: "POST", body, headers, duplex: "half" } as RequestInit);

describe("the body limits", () => {
  it("give Next.js the server action limit lib/http/read-body.ts enforces", async () => {
    const configFile = pathToFileURL(join(process.cwd(), "next.config.ts")).href;
    const { default: nextConfig } = (await import(configFile)) as { default: NextConfig };
    expect(nextConfig.experimental?.serverActions?.bodySizeLimit).toBe(BODY_LIMITS.serverAction);
    expect(nextConfig.experimental?.proxyClientMaxBodySize).toBe(BODY_LIMITS.serverAction + 1);
  });

  it("refuse a declared length over the limit, or one that is not a number", () => {
    expect(declaresTooLarge(new Headers({ "content-length": "17" }), 16)).toBe(true);
    expect(declaresTooLarge(new Headers({ "content-length": "16" }), 16)).toBe(false);
    expect(declaresTooLarge(new Headers({ "content-length": "1e9" }), 16)).toBe(true);
    expect(declaresTooLarge(new Headers(), 16)).toBe(false);
  });

  it("stop reading a stream one chunk past the limit, and accept one exactly at it", async () => {
    expect(await readBoundedBody(post(streamOf("12345678", "12345678")), 16)).toMatchObject({ ok: true });
    expect(await readBoundedBody(post(streamOf("12345678", "12345678", "9")), 16)).toEqual({
      ok: false,
      code: "payload_too_large",
    });
  });
});

describe("readJsonObject", () => {
  const json = { "content-type": "application/json; charset=UTF-8" };

  it("takes a JSON object in UTF-8 and nothing else", async () => {
    expect(await readJsonObject(post('{"a":"é"}', json), 100)).toEqual({ ok: true, value: { a: "é" } });
    for (const body of ["[1]", '"x"', "null", "{"]) {
      expect(await readJsonObject(post(body, json), 100), body).toEqual({ ok: false, code: "invalid_json" });
    }
  });

  it("answers 415 for any other media type or charset", () => {
    for (const type of ["text/plain", "application/json; charset=latin1", "application/jsonx", null]) {
      expect(isJsonContentType(type), String(type)).toBe(false);
    }
    expect(isJsonContentType('application/json; charset="utf-8"')).toBe(true);
  });
});
