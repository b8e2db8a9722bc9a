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
 * offer script's confirmations sit right after the plan that brings them, the recording id after the sale's own.
 */
export const FORM_FIELDS_IN_ORDER = [
  "customerDocument",
  "customerName",
  "customerEmail",
  "customerPhone",
  "planId",
  "confirmations",
  "birthDate",
  "externalId",
  "recordingId",
] as const satisfies readonly (SaleField | EvidenceField)[];
export type FormField = (typeof FORM_FIELDS_IN_ORDER)[number];
