import "server-only";
import { BlockList, isIP } from "node:net";
import type { ClientAddressHeader, TrustedProxies } from "@/lib/config/parse";
import { getConfig } from "@/lib/env";

/**
 * Who is on the other end of a request, as far as the configured trust allows (TRUSTED_PROXIES).
 *
 * The app's server (scripts/server.mjs) appends the socket's peer to X-Forwarded-For, so the header's right-most
 * entry is always the machine that connected. Walking left, each hop is believed only while the one that handed
 * it over is a trusted proxy; the first address not vouched for that way is the client. Unset, no forwarded
 * header is believed at all: the client is the peer.
 *
 * Which header the proxies write the client into is configured (TRUSTED_PROXY_HEADER), never guessed: with a
 * fallback from one to another, whichever header a proxy passes through untouched is the client's to write.
 * X-Forwarded-For and Forwarded are chains walked as above; X-Real-IP is the one address the nearest proxy saw.
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

export interface ProxyTrust {
  trust: TrustedProxies;
  header: ClientAddressHeader;
  /** Whether scripts/server.mjs runs this process, so the right-most X-Forwarded-For entry is the socket's peer. */
  peerAppended: boolean;
}

const PEER_APPENDED = Symbol.for("partner-sales.peer-appended");

function configuredTrust(): ProxyTrust {
  const config = getConfig();
  return {
    trust: config.trustedProxies,
    header: config.clientAddressHeader,
    peerAppended: (globalThis as Record<symbol, unknown>)[PEER_APPENDED] === true,
  };
}

/** What the trusted peer says about the hops before it, left to right, from the configured header only. */
function hopsBeforePeer(headers: Headers, header: ClientAddressHeader, xffBeforePeer: string[]): string[] {
  switch (header) {
    case "x-forwarded-for":
      return xffBeforePeer;
    case "forwarded":
      return forwardedFor(headers.get("forwarded") ?? "")
        .map(normalize)
        .filter(Boolean);
    case "x-real-ip": {
      const realIp = normalize(headers.get("x-real-ip") ?? "");
      return realIp ? [realIp] : [];
    }
  }
}

export function requestOrigin(
  headers: Headers,
  { trust, header, peerAppended }: ProxyTrust = configuredTrust(),
): RequestOrigin {
  // Without scripts/server.mjs (`next dev`, bare `next start`) Next.js keeps a client's X-Forwarded-For as it came:
  // no entry is known to be the peer, so every client is "unknown" (one shared sign-in limit) rather than forged.
  if (!peerAppended) return { address: "unknown", https: false };
  // scripts/server.mjs appended the socket's peer: the right-most entry is the one fact nobody else wrote.
  const chain = (headers.get("x-forwarded-for") ?? "").split(",").map(normalize).filter(Boolean);
  const peer = chain.at(-1) ?? "unknown";
  if (!isTrusted(trust, peer, 0)) return { address: peer, https: false };

  const hops = hopsBeforePeer(headers, header, chain.slice(0, -1));
  let address = peer;
  for (let index = hops.length - 1, fromUs = 1; index >= 0; index -= 1, fromUs += 1) {
    address = hops[index]!;
    if (!isTrusted(trust, address, fromUs)) break;
  }
  const proto = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  return { address, https: proto === "https" };
}

/**
 * The host the client asked for as a trusted proxy tells it (X-Forwarded-Host), or null: from a peer TRUSTED_PROXIES
 * does not name, the header is the client's own words (scripts/server.mjs removes it before Next.js sees it).
 */
export function forwardedHost(
  headers: Headers,
  { trust, peerAppended }: ProxyTrust = configuredTrust(),
): string | null {
  if (!peerAppended) return null;
  const peer = (headers.get("x-forwarded-for") ?? "").split(",").map(normalize).filter(Boolean).at(-1);
  if (!peer || !isTrusted(trust, peer, 0)) return null;
  // The right-most value is the one the trusted proxy wrote (one that appends leaves the client's to its left).
  return headers.get("x-forwarded-host")?.split(",").at(-1)?.trim().toLowerCase() || null;
}

/** Whether the machine that connected is one of TRUSTED_PROXIES (scripts/server.mjs asks, through lib/server-start). */
export function isTrustedPeer(peer: string): boolean {
  return isTrusted(configuredTrust().trust, normalize(peer), 0);
}

/** The client's address for limits and logs. */
export function clientAddress(headers: Headers): string {
  return requestOrigin(headers).address;
}

/** Whether the request reached us over https (for Strict-Transport-Security). */
export function isHttpsRequest(headers: Headers): boolean {
  return requestOrigin(headers).https;
}
