import { cpfCheckDigits } from "../../lib/validation/cpf";

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
