import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { E2E_DATA_DIR } from "./environment";

const root = join(import.meta.dirname, "../..");

/**
 * Runs one of the operator's tools (`npm run agents|customers|audit -- …`) against the running e2e app's data
 * directory (through its socket), or against the database `env` names (another instance's PostgreSQL).
 */
export function operatorTool(
  name: "agents" | "customers" | "audit" | "api-keys" | "webhooks" | "evidence",
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    join(root, "node_modules/.bin/tsx"),
    ["--conditions=react-server", `scripts/${name}.ts`, ...args],
    {
      cwd: root,
      env: { ...process.env, PARTNER_API_BASE_URL: "", DATABASE_URL: "", DATA_DIR: E2E_DATA_DIR, ...env },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })));
}

/** `npm run api-keys -- create|rotate …`: the key it printed, once. */
export async function apiKeyFromCli(args: string[], env: Record<string, string> = {}): Promise<string> {
  const made = await operatorTool("api-keys", args, env);
  const key = /Key: (psk_\S+)/.exec(made.stdout)?.[1];
  if (made.status !== 0 || !key) throw new Error(`api-keys ${args[0]} exited ${made.status}: ${made.stderr}`);
  return key;
}

export const agentsCli = (args: string[], env: Record<string, string> = {}) =>
  operatorTool("agents", args, env);

/**
 * A password the CLI set is the person's to change at their first sign-in (e2e/second-factor.spec.ts): for the
 * specs about everything else, the account as it is once they have.
 */
export async function keepFirstPassword(email: string, env: Record<string, string> = {}): Promise<void> {
  const child = spawn(
    join(root, "node_modules/.bin/tsx"),
    ["--conditions=react-server", "e2e/support/first-password-kept.ts", email],
    {
      cwd: root,
      env: { ...process.env, PARTNER_API_BASE_URL: "", DATABASE_URL: "", DATA_DIR: E2E_DATA_DIR, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (status !== 0) throw new Error(`first-password-kept failed: ${stderr}`);
}

export interface TestAgent {
  email: string;
  password: string;
  name: string;
}

export async function createAgent(
  role: "agent" | "supervisor" = "agent",
  env: Record<string, string> = {},
  name = "Agente Teste",
): Promise<TestAgent> {
  const agent = {
    email: `e2e-${randomUUID().slice(0, 8)}@example.com`,
    password: "vela-ponte-quartzo-81",
    name,
  };
  const result = await agentsCli(
    ["add", "--email", agent.email, "--name", agent.name, "--role", role, "--password", agent.password],
    env,
  );
  if (result.status !== 0) throw new Error(`agents add failed: ${result.stderr}`);
  await keepFirstPassword(agent.email, env);
  return agent;
}
