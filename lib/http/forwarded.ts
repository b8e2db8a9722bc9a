import "server-only";
import { BlockList, isIP } from "node:net";
import type { TrustedProxies } from "@/lib/config/parse";
import { getConfig } from "@/lib/env";

/**
 * Who is on the other end of a request, as far as the configured trust allows (TRUSTED_PROXIES).
 *
 * The app's server (scripts/server.mjs) appends the socket's peer to X-Forwarded-For, so the header's right-most
 * entry is always the machine that connected. Walking left, each hop is believed only while the one that handed
 * it over is a trusted proxy; the first address not vouched for that way is the client. Unset, no forwarded
 * header is believed at all: the client is the peer.
 */
export interface RequestOrigin {
  /** The client's IP address (or "unknown" when the server could not tell). */
  address: string;
  /** Whether the client reached us over https: a trusted proxy's X-Forwarded-Proto, else the socket (never TLS). */
  https: boolean;
}

function normalize(address: string): string {
  const trimmed = address.trim().replace(/^\[(.*)\](?::\d+)?$/, "$1");
  // "1.2.3.4:5678" (some proxies add the port)
  const withoutPort = /^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(trimmed) ? trimmed.replace(/:\d+$/, "") : trimmed;
  return withoutPort.startsWith("::ffff:") && withoutPort.includes(".") ? withoutPort.slice(7) : withoutPort;
}

/** The hops of `Forwarded: for=…` (RFC 7239), left to right. */
function forwardedFor(header: string): string[] {
  return header.split(",").flatMap((element) => {
    const match = /(?:^|;)\s*for\s*=\s*("[^"]*"|[^;,\s]+)/i.exec(element);
    return match ? [match[1]!.replace(/^"|"$/g, "")] : [];
  });
}

const blockLists = new WeakMap<TrustedProxies, BlockList>();
function trustedNetworks(trust: Extract<TrustedProxies, { kind: "networks" }>): BlockList {
  let list = blockLists.get(trust);
  if (!list) {
    list = new BlockList();
    for (const { address, prefix, family } of trust.networks) list.addSubnet(address, prefix, `ipv${family}`);
    blockLists.set(trust, list);
  }
  return list;
}

function isTrusted(trust: TrustedProxies, address: string, hopsFromUs: number): boolean {
  switch (trust.kind) {
    case "none":
      return false;
    case "hops":
      return hopsFromUs < trust.count;
    case "networks": {
      const family = isIP(address);
      return family !== 0 && trustedNetworks(trust).check(address, family === 4 ? "ipv4" : "ipv6");
    }
  }
}

export function requestOrigin(
  headers: Headers,
  trust: TrustedProxies = getConfig().trustedProxies,
): RequestOrigin {
  const chain = (headers.get("x-forwarded-for") ?? "").split(",").map(normalize).filter(Boolean);
  const peer = chain.at(-1) ?? "unknown";
  if (!isTrusted(trust, peer, 0)) return { address: peer, https: false };

  // The peer is a proxy we trust: what it says about the client is believed. Proxies that speak RFC 7239 or
  // only X-Real-IP (with no X-Forwarded-For of their own) are read the same way.
  let hops = chain.slice(0, -1);
  if (hops.length === 0) {
    const forwarded = headers.get("forwarded");
    const realIp = headers.get("x-real-ip");
    hops = forwarded ? forwardedFor(forwarded).map(normalize) : realIp ? [normalize(realIp)] : [];
  }
  let address = peer;
  for (let index = hops.length - 1, fromUs = 1; index >= 0; index -= 1, fromUs += 1) {
    address = hops[index]!;
    if (!isTrusted(trust, address, fromUs)) break;
  }
  const proto = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  return { address, https: proto === "https" };
}

/** The client's address for limits and logs. */
export function clientAddress(headers: Headers): string {
  return requestOrigin(headers).address;
}

/** Whether the request reached us over https (for Strict-Transport-Security). */
export function isHttpsRequest(headers: Headers): boolean {
  return requestOrigin(headers).https;
}
