import { randomUUID } from "node:crypto";
import { expect, type APIRequestContext } from "@playwright/test";
import { cpfCheckDigits } from "../../lib/validation/cpf";
import type { Stats } from "../../sandbox/state";
import { SANDBOX_URL } from "./environment";

export async function sandboxControl<T = unknown>(
  method: "GET" | "POST" | "DELETE",
  name: string,
  body?: unknown,
) {
  const response = await fetch(`${SANDBOX_URL}/__sandbox/${name}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`sandbox ${method} ${name}: ${response.status}`);
  return (await response.json()) as T;
}

export const sandboxStats = () => sandboxControl<Stats>("GET", "stats");
export const sandboxRequests = () =>
  sandboxControl<{ path: string; headers: Record<string, string>; rawBody: string }[]>("GET", "requests");

let next = Math.floor(Math.random() * 100_000_000);

/** A valid CPF nobody else in this run uses (the sandbox refuses the same customer twice for a plan). */
export function freshCpf(): string {
  const base = String(200_000_000 + (next++ % 700_000_000)).padStart(9, "0");
  return base + cpfCheckDigits(base);
}

/** A valid body for POST /api/sales, a customer nobody else in this run uses. */
export function apiSale(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customerDocument: freshCpf(),
    customerName: "Carla Mendes",
    customerEmail: "carla@example.com",
    customerPhone: "31987654321",
    planId: "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14",
    ...overrides,
  };
}

/**
 * Starts a sale (`data`, under `key`) that the provider holds for `holdMs` (under the app's provider timeout), and waits until the provider has it:
 * whatever the test does next happens while the sale is in flight. `answered` says whether its answer has come
 * back: a test checks it has not after its own step, so it never passes without a sale in flight. The latency
 * stays until the test sets it back.
 */
export async function saleInFlight(
  context: APIRequestContext,
  {
    data = apiSale(),
    key = randomUUID(),
    holdMs = 3_000,
  }: { data?: Record<string, unknown>; key?: string; holdMs?: number } = {},
) {
  await sandboxControl("POST", "latency", { ms: holdMs, target: "sale" });
  const before = (await sandboxStats()).saleRequests;
  const answer = context.post("/api/sales", { data, headers: { "Idempotency-Key": key } });
  let settled = false;
  const done = () => {
    settled = true;
  };
  answer.then(done, done);
  await expect
    .poll(async () => (await sandboxStats()).saleRequests, { timeout: 20_000, intervals: [100] })
    .toBe(before + 1);
  return { key, answer, answered: () => settled };
}

export { formatCpf } from "../../lib/format";
