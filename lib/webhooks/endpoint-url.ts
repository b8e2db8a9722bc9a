import { isIP } from "node:net";
import { addressAllowed, allowedNetworks } from "./address-guard";

/**
 * An endpoint's URL as `webhooks add` takes it, or why not (for the operator, naming the option): refused at once
 * where no delivery could ever be made to it. Names are checked at each delivery, on the address connected to
 * (lib/webhooks/address-guard.ts); an address written in the URL is checked here already.
 */
export function checkEndpointUrl(
  value: string | undefined,
  rules: { allowHttp: boolean; allowedNetworks: readonly string[] },
): { url: string } | { problem: string } {
  if (!value) return { problem: "--url is required." };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: `--url is not a URL (got "${value}").` };
  }
  if (url.protocol !== "https:" && !(rules.allowHttp && url.protocol === "http:")) {
    return { problem: `--url must be https:// (got ${url.protocol}//): deliveries carry signed sales.` };
  }
  if (url.username || url.password) {
    return { problem: "--url may not carry a user or password: the signature proves the sender." };
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && !addressAllowed(host, allowedNetworks(rules.allowedNetworks))) {
    return {
      problem: `--url points at ${host}, a private, loopback or metadata address: list its network in WEBHOOK_ALLOWED_NETWORKS to allow it.`,
    };
  }
  return { url: url.toString() };
}
