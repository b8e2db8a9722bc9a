import type { ShownConfirmation } from "@/lib/sales/offer-script";
import type { SaleField } from "@/lib/validation/sale";
import type { EvidenceField } from "@/lib/validation/evidence";

/** Confirmation id → when the agent ticked it (ISO 8601, UTC): what the form posts as `confirmations`. */
export type Ticks = Readonly<Record<string, string>>;

/** Ticking records the moment the customer said yes; unticking forgets it (a tick again is a new moment). */
export function withTick(ticks: Ticks, id: string, ticked: boolean, now: Date): Ticks {
  if (!ticked) return Object.fromEntries(Object.entries(ticks).filter(([key]) => key !== id));
  return { ...ticks, [id]: now.toISOString() };
}

/** The first required confirmation not ticked, in the script's order, or null when all are. */
export function firstMissingConfirmation(
  confirmations: readonly ShownConfirmation[],
  ticks: Ticks,
): ShownConfirmation | null {
  return confirmations.find((item) => item.required && !Object.hasOwn(ticks, item.id)) ?? null;
}

/**
 * Every control that can carry an error, in the form's visual order: the first one wrong takes the focus. The
 * plan comes first, as the offer does on the call, and its script's confirmations right after it, before the
 * customer's data: from the keyboard the Tab that leaves the plan reaches them, so each costs one key (a Space
 * that ticks it and moves on). The recording id comes after the sale's own optional fields.
 */
export const FORM_FIELDS_IN_ORDER = [
  "planId",
  "confirmations",
  "customerDocument",
  "customerName",
  "customerEmail",
  "customerPhone",
  "birthDate",
  "externalId",
  "recordingId",
] as const satisfies readonly (SaleField | EvidenceField)[];
export type FormField = (typeof FORM_FIELDS_IN_ORDER)[number];
