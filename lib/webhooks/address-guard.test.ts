import { describe, expect, it } from "vitest";
import { addressAllowed, allowedNetworks, guardedLookup } from "./address-guard";

const none = allowedNetworks([]);

describe("the webhooks' address guard", () => {
  it("refuses this host, private, link-local, metadata and reserved addresses, in IPv4 and IPv6", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fd00:ec2::254",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::a9fe:a9fe",
      "::ffff:10.0.0.1",
    ]) {
      expect(addressAllowed(address, none), address).toBe(false);
    }
    for (const address of ["8.8.8.8", "200.147.67.142", "2800:3f0:4001:810::200e", "::ffff:8.8.8.8"]) {
      expect(addressAllowed(address, none), address).toBe(true);
    }
    expect(addressAllowed("crm.example", none)).toBe(false);
  });

  it("lets an operator's network through, and only it", () => {
    const onPremises = allowedNetworks(["10.20.0.0/16", "fd12:3456::/32"]);
    expect(addressAllowed("10.20.5.6", onPremises)).toBe(true);
    expect(addressAllowed("10.21.0.1", onPremises)).toBe(false);
    expect(addressAllowed("fd12:3456::1", onPremises)).toBe(true);
    expect(addressAllowed("169.254.169.254", onPremises)).toBe(false);
    // The metadata services stay shut whatever is allowed.
    const careless = allowedNetworks(["0.0.0.0/0", "::/0"]);
    for (const address of ["169.254.169.254", "::ffff:169.254.169.254", "fd00:ec2::254", "169.254.170.2"]) {
      expect(addressAllowed(address, careless), address).toBe(false);
    }
    expect(addressAllowed("10.9.9.9", careless)).toBe(true);
    expect(() => allowedNetworks(["10.0.0.0"])).toThrow(/Not a network/);
  });

  it("refuses a name that resolves to a forbidden address, at the lookup the socket uses", async () => {
    const lookup = guardedLookup(none);
    const result = await new Promise<{ error: Error | null; address: string }>((resolve) =>
      lookup("localhost", {}, (error, address) => resolve({ error, address: String(address) })),
    );
    expect(result.error?.name).toBe("ForbiddenAddressError");
    const allowed = guardedLookup(allowedNetworks(["127.0.0.0/8", "::1/128"]));
    const passed = await new Promise<{ error: Error | null; address: string }>((resolve) =>
      allowed("localhost", {}, (error, address) => resolve({ error, address: String(address) })),
    );
    expect(passed.error).toBeNull();
    expect(["127.0.0.1", "::1"]).toContain(passed.address);
  });
});
