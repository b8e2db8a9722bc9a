import { SALE_FIELDS, type SaleFormValues } from "./sale";

/** What a portal may put in the form (its token's `prefill`, a `partner-sales:prefill` message): the sale's fields
 * and the call's recording id, which the portal's dialer knows before the agent does. */
export const PREFILL_FIELDS = [...SALE_FIELDS, "recordingId"] as const;
export type PrefillField = (typeof PREFILL_FIELDS)[number];
export type PrefillValues = Partial<SaleFormValues & { recordingId: string }>;

/** Only the prefillable fields, only strings: anything else a portal sends is dropped. */
export function pickPrefillFields(value: unknown): PrefillValues {
  if (!value || typeof value !== "object") return {};
  const fields = value as Record<string, unknown>;
  return Object.fromEntries(
    PREFILL_FIELDS.filter((field) => typeof fields[field] === "string").map((field) => [
      field,
      fields[field] as string,
    ]),
  );
}
