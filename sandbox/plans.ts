import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface Plan {
  id: string;
  name: string;
  description: string;
  /** In reais, as `PLANS_FILE` may carry it. */
  price?: number;
}

export const DEMO_PLANS_FILE = fileURLToPath(new URL("./demo-plans.json", import.meta.url));

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isPlan(value: unknown): value is Plan {
  if (typeof value !== "object" || value === null) return false;
  const { id, name, description, price } = value as Record<string, unknown>;
  return (
    typeof id === "string" &&
    UUID_PATTERN.test(id) &&
    typeof name === "string" &&
    typeof description === "string" &&
    (price === undefined || typeof price === "number")
  );
}

export function loadDemoPlans(): Plan[] {
  const parsed: unknown = JSON.parse(readFileSync(DEMO_PLANS_FILE, "utf8"));
  if (!Array.isArray(parsed) || !parsed.every(isPlan)) {
    throw new Error(`${DEMO_PLANS_FILE} must be a list of {id (UUID), name, description, price?}.`);
  }
  return parsed;
}
