import { describe, expect, it } from "vitest";
import { parseClientAddressHeader, parseTrustedProxies } from "@/lib/config/parse";
import { forwardedHost, requestOrigin } from "./forwarded";

// As scripts/server.mjs hands requests over: the socket's peer is always the right-most X-Forwarded-For entry.
function origin(trusted: string | undefined, headers: Record<string, string>, header?: string) {
  return requestOrigin(new Headers(headers), {
    trust: parseTrustedProxies(trusted),
    header: parseClientAddressHeader(header),
    peerAppended: true,
  });
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

  it("reads only the configured header: the others, passed through a proxy untouched, are the client's to write", () => {
    const headers = {
      "x-forwarded-for": "198.51.100.10, 127.0.0.1",
      "x-real-ip": "198.51.100.9",
      forwarded: 'for="[2001:db8::7]:443";proto=https',
    };
    expect(origin("127.0.0.1", headers).address).toBe("198.51.100.10");
    expect(origin("127.0.0.1", headers, "X-Real-IP").address).toBe("198.51.100.9");
    expect(origin("127.0.0.1", headers, "Forwarded").address).toBe("2001:db8::7");
    // The configured header missing: the proxy itself is the client, never another header's word.
    expect(origin("127.0.0.1", { "x-forwarded-for": "203.0.113.5, 127.0.0.1" }, "X-Real-IP").address).toBe(
      "127.0.0.1",
    );
  });

  it("walks a Forwarded chain like X-Forwarded-For, and believes neither from an untrusted peer", () => {
    const forwarded = "for=203.0.113.50, for=198.51.100.7;proto=https, for=10.0.0.5";
    expect(origin("10.0.0.0/8", { "x-forwarded-for": "10.0.0.9", forwarded }, "Forwarded").address).toBe(
      "198.51.100.7",
    );
    expect(origin("10.0.0.0/8", { "x-forwarded-for": "192.0.2.1", forwarded }, "Forwarded").address).toBe(
      "192.0.2.1",
    );
  });

  it("normalizes IPv4-mapped IPv6 and ports", () => {
    expect(origin("::1", { "x-forwarded-for": "198.51.100.7:51000, ::1" }).address).toBe("198.51.100.7");
    expect(origin(undefined, { "x-forwarded-for": "::ffff:127.0.0.1" }).address).toBe("127.0.0.1");
  });

  it("believes no address at all when scripts/server.mjs did not append the peer (next dev, bare next start)", () => {
    const headers = new Headers({ "x-forwarded-for": "203.0.113.50", "x-forwarded-proto": "https" });
    expect(
      requestOrigin(headers, {
        trust: parseTrustedProxies("1"),
        header: "x-forwarded-for",
        peerAppended: false,
      }),
    ).toEqual({ address: "unknown", https: false });
  });

  it("says unknown when there is no address at all", () => {
    expect(origin(undefined, {}).address).toBe("unknown");
  });
});

describe("forwardedHost", () => {
  const host = (trusted: string | undefined, headers: Record<string, string>, peerAppended = true) =>
    forwardedHost(new Headers(headers), {
      trust: parseTrustedProxies(trusted),
      header: parseClientAddressHeader(undefined),
      peerAppended,
    });

  it("is the trusted proxy's word, and nobody else's", () => {
    const forged = { "x-forwarded-for": "203.0.113.50", "x-forwarded-host": "evil.example" };
    expect(host(undefined, forged)).toBeNull();
    expect(host("10.0.0.0/8", forged)).toBeNull();
    expect(host("10.0.0.0/8", forged, false)).toBeNull();
    const proxied = {
      "x-forwarded-for": "203.0.113.50, 10.0.0.5",
      "x-forwarded-host": "Vendas.Parceira.example",
    };
    expect(host("10.0.0.0/8", proxied)).toBe("vendas.parceira.example");
    expect(host("10.0.0.0/8", { "x-forwarded-for": "10.0.0.5" })).toBeNull();
  });
});
