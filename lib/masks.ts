import { nationalPhoneDigits } from "./validation/phone";

/** Fixed-pattern masks: `0` is a digit slot, anything else a literal shown once a digit follows it. */
export type Mask = (digits: string) => string;

export function applyPattern(digits: string, pattern: string): string {
  let output = "";
  let next = 0;
  for (const slot of pattern) {
    if (next >= digits.length) break;
    output += slot === "0" ? digits[next++] : slot;
  }
  return output;
}

export const cpfMask: Mask = (digits) => applyPattern(digits.slice(0, 11), "000.000.000-00");

// Landline (00) 0000-0000 up to 10 digits; the 11th digit turns it into a mobile (00) 00000-0000.
export const phoneMask: Mask = (typed) => {
  const digits = nationalPhoneDigits(typed);
  return digits.length > 10
    ? applyPattern(digits.slice(0, 11), "(00) 00000-0000")
    : applyPattern(digits, "(00) 0000-0000");
};

export const dateMask: Mask = (digits) => applyPattern(digits.slice(0, 8), "00/00/0000");

/** Where the caret goes after reformatting: right after the same number of digits as before. */
export function caretAfterDigits(formatted: string, digitCount: number): number {
  if (digitCount <= 0) return 0;
  let seen = 0;
  for (let index = 0; index < formatted.length; index++) {
    if (/\d/.test(formatted.charAt(index)) && ++seen === digitCount) return index + 1;
  }
  return formatted.length;
}
