import { cpfCheckDigits } from "../lib/validation/cpf";
import type { ProviderConfig } from "../lib/provider/client";
import { createSandbox, type SandboxOptions } from "./server";

export const CLIENT_ID = "sandbox-client";
export const CLIENT_SECRET = "sandbox-secret";
// Written out rather than imported from the endpoints: the tests pin the paths the provider documents.
export const TOKEN_PATH = "/core/sso/connect/token";
export const SALE_PATH = "/core/financeiro/partnersale";
export const VALID_CPF = "52998224725";
export const ESSENCIAL_PLAN_ID = "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14";
export const FAMILIA_PLAN_ID = "a7d2e9b0-41c3-4f58-8e6a-2b9c0d7f1e35";

/** The provider client's configuration for a sandbox at `baseUrl`, with the sandbox's demo client. */
export function clientConfigFor(baseUrl: string, overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    baseUrl,
    tokenPath: TOKEN_PATH,
    salePath: SALE_PATH,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    partnerSource: undefined,
    timeoutMs: 5_000,
    ...overrides,
  };
}

export interface RunningSandbox {
  url: string;
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const logs: Record<string, unknown>[] = [];
  const sandbox = createSandbox({ log: (entry) => logs.push(entry), ...options });
  const url = await sandbox.listen(0, "127.0.0.1");
  return { url, logs, close: () => sandbox.close() };
}

let cpfCounter = 100_000_000;

/** A fresh valid CPF on every call, so tests never collide on "o cliente já possui este plano". */
export function generateCpf(): string {
  const base = String(cpfCounter++).padStart(9, "0");
  return base + cpfCheckDigits(base);
}

export function validSale(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerDocument: generateCpf(),
    customerEmail: "maria.souza@example.com",
    customerPhone: "11987654321",
    customerName: "Maria Conceição D'Ávila",
    planId: ESSENCIAL_PLAN_ID,
    ...overrides,
  };
}

export function requestToken(
  url: string,
  fields: Record<string, string>,
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${url}${TOKEN_PATH}`, { method: "POST", body: new URLSearchParams(fields), ...init });
}

export async function issueToken(url: string): Promise<string> {
  const response = await requestToken(url, {
    grant_type: "client_credentials",
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
  });
  if (response.status !== 200) throw new Error(`Token request failed with ${response.status}.`);
  const { access_token } = (await response.json()) as { access_token: string };
  return access_token;
}

export function postSale(
  url: string,
  token: string | null,
  body: unknown,
  { path = SALE_PATH, signal }: { path?: string; signal?: AbortSignal } = {},
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return fetch(`${url}${path}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal,
  });
}

export async function control<T = unknown>(
  url: string,
  method: "GET" | "POST" | "DELETE",
  name: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${url}/__sandbox/${name}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}
