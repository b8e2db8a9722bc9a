import type { KeyboardEvent } from "react";

/** Enter sends the sale from every field: neither a select nor a checkbox submits its form by itself. */
export function submitOnEnter(event: KeyboardEvent<HTMLSelectElement | HTMLInputElement>): void {
  if (event.key !== "Enter") return;
  event.preventDefault();
  event.currentTarget.form?.requestSubmit();
}
