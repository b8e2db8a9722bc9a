export type PhoneProblem = "length" | "ddd" | "mobile" | "landline";

// Brazilian area codes (DDD) in use, per Anatel.
export const VALID_DDDS: ReadonlySet<string> = new Set(
  [
    [11, 19],
    [21, 22],
    [24, 24],
    [27, 28],
    [31, 35],
    [37, 38],
    [41, 49],
    [51, 51],
    [53, 55],
    [61, 69],
    [71, 71],
    [73, 75],
    [77, 77],
    [79, 79],
    [81, 89],
    [91, 99],
  ].flatMap(([first = 0, last = 0]) =>
    Array.from({ length: last - first + 1 }, (_, offset) => String(first + offset)),
  ),
);

/** Problem with a phone given as digits only: DDD + number, no country code. */
export function phoneProblem(digits: string): PhoneProblem | null {
  if (!/^\d{10,11}$/.test(digits)) return "length";
  if (!VALID_DDDS.has(digits.slice(0, 2))) return "ddd";
  const firstDigit = digits.charAt(2);
  if (digits.length === 11) return firstDigit === "9" ? null : "mobile";
  return /[2-5]/.test(firstDigit) ? null : "landline";
}

export function isValidPhone(digits: string): boolean {
  return phoneProblem(digits) === null;
}

/** Digits as typed or pasted to DDD + number: drops a +55 country code or a 0 trunk prefix. */
export function nationalPhoneDigits(digits: string): string {
  if (digits.length >= 12 && digits.startsWith("55")) return digits.slice(2);
  if (digits.length >= 11 && digits.startsWith("0")) return digits.slice(1);
  return digits;
}
