import { nationalPhoneDigits } from "./validation/phone";
import type { SaleField } from "./validation/sale";

/**
 * A mask takes what the field holds after an input event (typed, pasted or autofilled, with or without the
 * mask's own literals) and returns it formatted. Fixed patterns: `0` is a digit slot, anything else a literal
 * shown once a digit follows it.
 */
export type Mask = (value: string) => string;

const digitsOf = (value: string) => value.replace(/\D/g, "");

export function applyPattern(digits: string, pattern: string): string {
  let output = "";
  let next = 0;
  for (const slot of pattern) {
    if (next >= digits.length) break;
    output += slot === "0" ? digits[next++] : slot;
  }
  return output;
}

export const cpfMask: Mask = (value) => applyPattern(digitsOf(value).slice(0, 11), "000.000.000-00");

// Landline (00) 0000-0000 up to 10 digits; the 11th digit turns it into a mobile (00) 00000-0000.
export const phoneMask: Mask = (value) => {
  const digits = nationalPhoneDigits(digitsOf(value));
  return digits.length > 10
    ? applyPattern(digits.slice(0, 11), "(00) 00000-0000")
    : applyPattern(digits, "(00) 0000-0000");
};

/**
 * A whole date pasted in a common form becomes DDMMAAAA before the mask: `AAAA-MM-DD` (ISO, spreadsheets),
 * `D/M/AAAA` with `/`, `.` or `-` (one-digit day or month). Anything else, typing included, is its digits.
 */
export function dateDigits(value: string): string {
  const text = value.trim();
  const pad = (part: string) => part.padStart(2, "0");
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  if (iso) return `${pad(iso[3]!)}${pad(iso[2]!)}${iso[1]}`;
  const brazilian = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})$/.exec(text);
  if (brazilian) return `${pad(brazilian[1]!)}${pad(brazilian[3]!)}${brazilian[4]}`;
  return digitsOf(text);
}

/**
 * Text without a single digit ("ontem", "n/d", pasted or prefilled) stays as it is, so the field's own message
 * says what is wrong: emptied, the optional date would silently go without it.
 */
export const dateMask: Mask = (value) => {
  const digits = dateDigits(value);
  if (digits === "" && value.trim() !== "") return value;
  return applyPattern(digits.slice(0, 8), "00/00/0000");
};

/** Where the caret goes after reformatting: right after the same number of digits as before. */
export function caretAfterDigits(formatted: string, digitCount: number): number {
  if (digitCount <= 0) return 0;
  let seen = 0;
  for (let index = 0; index < formatted.length; index++) {
    if (/\d/.test(formatted.charAt(index)) && ++seen === digitCount) return index + 1;
  }
  return formatted.length;
}

/** The sale form's masked fields, each with its mask: what typing, pasting and a portal's prefill go through. */
export const SALE_FIELD_MASKS = {
  customerDocument: cpfMask,
  customerPhone: phoneMask,
  birthDate: dateMask,
} as const satisfies Partial<Record<SaleField, Mask>>;

export function maskFor(field: SaleField): Mask | undefined {
  return (SALE_FIELD_MASKS as Partial<Record<SaleField, Mask>>)[field];
}
