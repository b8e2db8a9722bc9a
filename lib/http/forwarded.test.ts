import { describe, expect, it } from "vitest";
import { parseTrustedProxies } from "@/lib/config/parse";
import { requestOrigin } from "./forwarded";

// As scripts/server.mjs hands requests over: the socket's peer is always the right-most X-Forwarded-For entry.
function origin(trusted: string | undefined, headers: Record<string, string>) {
  return requestOrigin(new Headers(headers), parseTrustedProxies(trusted));
}

describe("requestOrigin", () => {
  it("believes no header when no proxy is trusted: the client is the peer", () => {
    expect(
      origin(undefined, {
        "x-forwarded-for": "203.0.113.50, 198.51.100.7",
        "x-real-ip": "203.0.113.51",
        forwarded: "for=203.0.113.52",
        "x-forwarded-proto": "https",
      }),
    ).toEqual({ address: "198.51.100.7", https: false });
  });

  it("takes the right-most hop a trusted proxy vouches for, not what the client wrote to its left", () => {
    const headers = {
      "x-forwarded-for": "203.0.113.50, 198.51.100.7, 10.0.0.5",
      "x-forwarded-proto": "https",
    };
    expect(origin("1", headers)).toEqual({ address: "198.51.100.7", https: true });
    expect(origin("10.0.0.0/8", headers)).toEqual({ address: "198.51.100.7", https: true });
    // Two trusted hops: the client-written entry is now what the outer proxy saw.
    expect(origin("2", headers).address).toBe("203.0.113.50");
  });

  it("does not believe a peer outside the trusted networks", () => {
    expect(
      origin("10.0.0.0/8", { "x-forwarded-for": "203.0.113.50, 192.0.2.9", "x-forwarded-proto": "https" }),
    ).toEqual({ address: "192.0.2.9", https: false });
  });

  it("reads Forwarded and X-Real-IP from a trusted proxy that sends no X-Forwarded-For of its own", () => {
    expect(
      origin("127.0.0.1", {
        "x-forwarded-for": "127.0.0.1",
        forwarded: 'for="[2001:db8::7]:443";proto=https',
      }).address,
    ).toBe("2001:db8::7");
    expect(origin("127.0.0.1", { "x-forwarded-for": "127.0.0.1", "x-real-ip": "198.51.100.9" }).address).toBe(
      "198.51.100.9",
    );
  });

  it("normalizes IPv4-mapped IPv6 and ports", () => {
    expect(origin("::1", { "x-forwarded-for": "198.51.100.7:51000, ::1" }).address).toBe("198.51.100.7");
    expect(origin(undefined, { "x-forwarded-for": "::ffff:127.0.0.1" }).address).toBe("127.0.0.1");
  });

  it("says unknown when there is no address at all", () => {
    expect(origin(undefined, {}).address).toBe("unknown");
  });
});
