import "server-only";
import { randomBytes } from "node:crypto";
import { hashPassword, verifyPassword } from "@/lib/auth/password";

export const RECOVERY_CODE_COUNT = 10;
// Crockford's base32 without the letters people confuse (I, L, O, U): ten characters, 50 bits each code.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function newCode(): string {
  const bytes = randomBytes(10);
  const characters = Array.from(bytes, (byte) => ALPHABET[byte & 31]).join("");
  return `${characters.slice(0, 5)}-${characters.slice(5)}`;
}

/** What is compared: upper case, no spaces or dashes, the letters people mistake for digits read as those digits. */
export function normalizeRecoveryCode(typed: string): string | null {
  const code = typed.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  return /^[0-9A-HJKMNP-TV-Z]{10}$/.test(code) ? code : null;
}

/**
 * Ten new codes, shown once, and their argon2id hashes to store: codes of under 112 bits are kept with the password
 * hash and its salt (ASVS V6.5.2).
 */
export async function newRecoveryCodes(): Promise<{ codes: string[]; hashes: string[] }> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  const hashes = await Promise.all(codes.map((code) => hashPassword(normalizeRecoveryCode(code)!)));
  return { codes, hashes };
}

/** Which of `stored` the typed code is; undefined when none. Each is checked in turn (at most ten). */
export async function matchRecoveryCode<T extends { codeHash: string }>(
  stored: readonly T[],
  typed: string,
): Promise<T | undefined> {
  const code = normalizeRecoveryCode(typed);
  if (!code) return undefined;
  for (const candidate of stored) if (await verifyPassword(candidate.codeHash, code)) return candidate;
  return undefined;
}
