/**
 * The test IdP in a process of its own, for an IdP whose clock is not ours: IDP_CLOCK_OFFSET_SECONDS moves its
 * `Date.now` (what oidc-provider stamps tokens with) and IDP_SETUP holds startIdentityProvider's arguments as JSON.
 * Prints `ready <issuer>` once it listens; SIGTERM stops it.
 */
import { startIdentityProvider, type IdentityProviderOptions } from "./identity-provider";

const offsetMs = Number(process.env.IDP_CLOCK_OFFSET_SECONDS ?? 0) * 1000;
if (offsetMs) {
  const realNow = Date.now.bind(Date);
  Date.now = () => realNow() + offsetMs;
}
const setup = JSON.parse(process.env.IDP_SETUP ?? "{}") as {
  appOrigins: string[];
  options: IdentityProviderOptions;
};
const idp = await startIdentityProvider(setup.appOrigins, setup.options);
process.stdout.write(`ready ${idp.issuer}\n`);
process.once("SIGTERM", () => void idp.stop().then(() => process.exit(0)));
