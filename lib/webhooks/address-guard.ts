import "server-only";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Where a webhook may not go (ASVS 5.0 V1.3.6, SSRF): this host, private networks, link-local (the clouds' metadata
 * service, 169.254.169.254 and fd00:ec2::254), carrier-grade NAT, multicast and the reserved and documentation
 * ranges, in IPv4 and IPv6 (IPv4-mapped and NAT64 addresses are their IPv4 address). An on-premises CRM on a
 * private address is reached only when the operator allows its network (WEBHOOK_ALLOWED_NETWORKS).
 */
const FORBIDDEN: [string, number, "ipv4" | "ipv6"][] = [
  ["0.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.0.0.0", 24, "ipv4"],
  ["192.0.2.0", 24, "ipv4"],
  ["192.88.99.0", 24, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["198.51.100.0", 24, "ipv4"],
  ["203.0.113.0", 24, "ipv4"],
  ["224.0.0.0", 4, "ipv4"],
  ["240.0.0.0", 4, "ipv4"],
  ["::", 128, "ipv6"],
  ["::1", 128, "ipv6"],
  ["100::", 64, "ipv6"],
  ["2001::", 23, "ipv6"],
  ["2001:db8::", 32, "ipv6"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
  ["fec0::", 10, "ipv6"],
  ["ff00::", 8, "ipv6"],
];

const forbidden = new BlockList();
for (const [address, prefix, family] of FORBIDDEN) forbidden.addSubnet(address, prefix, family);

/** An IPv6 address that carries an IPv4 one (::ffff:a.b.c.d, 64:ff9b::a.b.c.d), as that IPv4 address. */
function embeddedIpv4(address: string): string | null {
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Networks the operator allows although they are private ("10.20.0.0/16, fd12::/48"). */
export function allowedNetworks(cidrs: readonly string[]): BlockList {
  const allowed = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split("/");
    const family = isIP(address ?? "");
    if (!family || prefix === undefined || !/^\d{1,3}$/.test(prefix))
      throw new Error(`Not a network: ${cidr}`);
    allowed.addSubnet(address!, Number(prefix), family === 4 ? "ipv4" : "ipv6");
  }
  return allowed;
}

/**
 * The clouds' instance metadata services: never a receiver, whatever network the operator allows (an allowed
 * 169.254.0.0/16 or 0.0.0.0/0 does not open them).
 */
const metadata = new BlockList();
metadata.addAddress("169.254.169.254", "ipv4");
metadata.addAddress("169.254.170.2", "ipv4");
metadata.addAddress("fd00:ec2::254", "ipv6");

/** Whether a delivery may connect to `address` (an IP). */
export function addressAllowed(address: string, allowed: BlockList): boolean {
  const family = isIP(address);
  if (!family) return false;
  const v4 = family === 6 ? embeddedIpv4(address) : address;
  if (v4 !== null ? metadata.check(v4, "ipv4") : metadata.check(address, "ipv6")) return false;
  if (v4 !== null) return allowed.check(v4, "ipv4") || !forbidden.check(v4, "ipv4");
  return allowed.check(address, "ipv6") || !forbidden.check(address, "ipv6");
}

/** A refused address, as the delivery's error says it (never a secret, never the payload). */
export class ForbiddenAddressError extends Error {
  override readonly name = "ForbiddenAddressError";
  readonly code = "EWEBHOOKADDRESS";
}

/**
 * The `lookup` of every delivery's connection: the name resolved, and refused if any of its addresses is forbidden.
 * The check is on the addresses the socket then connects to (no second resolution in between: no DNS rebinding).
 */
export function guardedLookup(allowed: BlockList): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const refused = addresses.find((entry) => !addressAllowed(entry.address, allowed));
      if (refused || addresses.length === 0) {
        return callback(
          new ForbiddenAddressError(
            `${hostname} resolves to ${refused?.address ?? "nothing"}, which webhooks may not reach.`,
          ),
          "",
          0,
        );
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
