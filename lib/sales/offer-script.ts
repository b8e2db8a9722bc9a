import { createHash } from "node:crypto";
import type { OfferScript, Plan } from "@/lib/config/plans";

/** A confirmation as the form shows it: its text with the plan's name and price in place. */
export interface ShownConfirmation {
  id: string;
  text: string;
  required: boolean;
}

/** The offer script of a plan exactly as the agent sees it, and the hash that names that text. */
export interface ShownScript {
  version: string;
  text: string;
  confirmations: ShownConfirmation[];
  /** SHA-256 (hex) of the canonical JSON of version, text and confirmations: what the sale's record keeps. */
  hash: string;
}

const price = new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" });

/** `{plano}` and `{preco}` in a script's text, replaced by the plan's name and price as the form shows them. */
function fill(text: string, plan: Pick<Plan, "name" | "price">): string {
  return text
    .replaceAll("{plano}", plan.name)
    .replaceAll("{preco}", plan.price === undefined ? "" : price.format(plan.price));
}

/**
 * The canonical JSON a script's hash covers: keys in a fixed order, no spaces. Anyone holding a dispute pack
 * recomputes it from the pack's script (docs: "The evidence of a sale").
 */
export function shownScriptContent(script: Omit<ShownScript, "hash">): string {
  return JSON.stringify({
    version: script.version,
    text: script.text,
    confirmations: script.confirmations.map(({ id, text, required }) => ({ id, text, required })),
  });
}

export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** The plan's script as shown, or null: a plan without one sells as any other. */
export function showScript(
  plan: Pick<Plan, "name" | "price"> & { script?: OfferScript },
): ShownScript | null {
  if (!plan.script) return null;
  const shown = {
    version: plan.script.version,
    text: fill(plan.script.text, plan),
    confirmations: plan.script.confirmations.map((item) => ({
      id: item.id,
      text: fill(item.text, plan),
      required: item.required,
    })),
  };
  return { ...shown, hash: sha256Hex(shownScriptContent(shown)) };
}
