/** The sandbox's own defaults: what `npm run sandbox` and the app in sandbox mode (lib/config/parse.ts) assume. */
export const SANDBOX_DEFAULTS = {
  clientId: "sandbox-client",
  clientSecret: "sandbox-secret",
  port: 4010,
  host: "127.0.0.1",
  plansFile: "sandbox/demo-plans.json",
} as const;
