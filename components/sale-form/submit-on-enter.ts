import type { KeyboardEvent } from "react";

/**
 * Enter sends the sale from every field. A select never submits its form on Enter; a checkbox does in Chromium,
 * but HTML does not require it and not every browser does: this makes both the same everywhere.
 */
export function submitOnEnter(event: KeyboardEvent<HTMLSelectElement | HTMLInputElement>): void {
  if (event.key !== "Enter") return;
  event.preventDefault();
  event.currentTarget.form?.requestSubmit();
}
