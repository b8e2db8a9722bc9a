import nextEnv from "@next/env";
import { SANDBOX_DEFAULTS } from "./defaults";
import { createSandbox } from "./server";

// .env.local and the rest, as `npm start` reads them (docs/configuration.md): SANDBOX_* set there apply here too.
nextEnv.loadEnvConfig(process.cwd(), false, { info: () => {}, error: console.error });

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function readPort(value: string | undefined): number {
  if (value === undefined || value === "") return SANDBOX_DEFAULTS.port;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535)
    fail(`SANDBOX_PORT must be a port number (0-65535), got "${value}".`);
  return port;
}

function readOptional(name: string): string | undefined {
  const value = process.env[name];
  if (value === "") fail(`${name} is set but empty.`);
  return value;
}

const port = readPort(process.env.SANDBOX_PORT);
const host = process.env.SANDBOX_HOST || SANDBOX_DEFAULTS.host;
const sandbox = createSandbox({
  clientId: readOptional("SANDBOX_CLIENT_ID"),
  clientSecret: readOptional("SANDBOX_CLIENT_SECRET"),
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) process.exit(1); // a second signal means "now"
  stopping = true;
  await sandbox.close();
}

process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());

sandbox.listen(port, host).catch((error: unknown) => {
  fail(
    `The sandbox could not listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`,
  );
});
