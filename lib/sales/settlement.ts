import type { SaleResolution, SaleStatus } from "@/lib/db/schema";
import { STATUS_LABELS } from "@/lib/format";

export const SALE_RESOLUTIONS = ["registered", "not-registered"] as const satisfies readonly SaleResolution[];

export function isSaleResolution(value: unknown): value is SaleResolution {
  return SALE_RESOLUTIONS.some((resolution) => resolution === value);
}

/** Registered: the sale exists upstream. Not registered: nothing to duplicate, so it may be sold again. */
export function settledStatus(resolution: SaleResolution): Extract<SaleStatus, "accepted" | "failed"> {
  return resolution === "registered" ? "accepted" : "failed";
}

/** What the supervisor chooses, what they learnt, and what follows, in the words of every step of settling. */
export const SETTLEMENT_WORDS: Record<
  SaleResolution,
  { choice: string; finding: string; consequence: string; outcome: string }
> = {
  registered: {
    choice: "Foi registrada",
    finding: "o fornecedor registrou a venda",
    consequence: `A venda passa a ${STATUS_LABELS.accepted}.`,
    outcome: `a venda passou a ${STATUS_LABELS.accepted}`,
  },
  "not-registered": {
    choice: "Não foi registrada",
    finding: "o fornecedor não registrou a venda",
    consequence: `A venda passa a ${STATUS_LABELS.failed} e pode ser vendida de novo.`,
    outcome: `a venda passou a ${STATUS_LABELS.failed} e pode ser vendida de novo`,
  },
};
