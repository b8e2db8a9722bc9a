export type CpfProblem = "length" | "repeated" | "check-digit";

export function onlyDigits(value: string): string {
  return value.replace(/\D/g, "");
}

// Mod-11 check digit over the given digits, weights counting down to 2 from the rightmost digit.
function checkDigit(digits: string): number {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    sum += Number(digits[index]) * (digits.length + 1 - index);
  }
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/** The two check digits for a 9-digit CPF base, e.g. "529982247" → "25". */
export function cpfCheckDigits(base: string): string {
  if (!/^\d{9}$/.test(base)) throw new Error("A CPF base has exactly 9 digits.");
  const first = checkDigit(base);
  const second = checkDigit(base + first);
  return `${first}${second}`;
}

export function cpfProblem(digits: string): CpfProblem | null {
  if (!/^\d{11}$/.test(digits)) return "length";
  if (/^(\d)\1{10}$/.test(digits)) return "repeated";
  if (cpfCheckDigits(digits.slice(0, 9)) !== digits.slice(9)) return "check-digit";
  return null;
}

export function isValidCpf(digits: string): boolean {
  return cpfProblem(digits) === null;
}
