import { randomUUID } from "node:crypto";
import { cpfCheckDigits } from "../../lib/validation/cpf";
import type { LoadTarget } from "./load";

const ESSENCIAL_PLAN_ID = "3f6c1a52-8d4e-4b7a-9c21-5e0f7a9d2b14";
// Each bench run starts its own sandbox, which refuses the same CPF twice for a plan: CPFs are counted up from a
// base, and each process of the run takes its own base.
let nextCpf = 700_000_000;

export function countCpfsFrom(base: number): void {
  nextCpf = base;
}

/** A valid sale with a CPF never used before in this run, in the provider's field names and formats. */
export function freshSale() {
  const base = String(nextCpf++).padStart(9, "0");
  return {
    customerDocument: base + cpfCheckDigits(base),
    customerEmail: "bench@example.com",
    customerPhone: "11987654321",
    customerName: "Cliente de Benchmark",
    planId: ESSENCIAL_PLAN_ID,
    birthDate: "1990-05-17",
    externalId: "BENCH-1",
  };
}

/** A fresh sale through the app's `POST /api/sales`, signed in with `cookie`, under a new Idempotency-Key. */
export function appSale(name: string, origin: string, cookie: string): LoadTarget {
  return {
    name,
    origin,
    expectStatus: 201,
    countsDatabase: true,
    makeRequest: () => ({
      path: "/api/sales",
      headers: { "content-type": "application/json", cookie, "idempotency-key": randomUUID() },
      body: JSON.stringify(freshSale()),
    }),
  };
}
