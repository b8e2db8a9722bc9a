import { randomInt } from "node:crypto";

/**
 * The sale's protocol: what an agent reads to a customer and a supervisor types back. Ten characters of Crockford's
 * base32 (no I, L, O or U: nothing to confuse with 1, 0 or V, and no accidental words), nine random and one check
 * character, shown as two groups of five ("7KQ2M-X9R4B"). 32⁹ ≈ 3.5·10¹³ codes: the ledger's unique index settles
 * the rare collision.
 *
 * The check is Damm's algorithm over the field GF(32): x∘y = α·x + y, with α a generator (≠ 0, 1). Being a
 * quasigroup, it catches every single mistyped character; being totally anti-symmetric ((c∘x)∘y = (c∘y)∘x only
 * when x = y), every swap of two adjacent characters. And unlike Crockford's own mod-37 check, the check character
 * is one of the 32 letters and digits, never `*~$=`.
 */
export const PROTOCOL_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const DATA_LENGTH = 9;
export const PROTOCOL_LENGTH = DATA_LENGTH + 1;

// GF(2⁵) with the primitive polynomial x⁵ + x² + 1; α = x (2).
const REDUCER = 0b100101;
function timesAlpha(value: number): number {
  const shifted = value << 1;
  return shifted & 0b100000 ? shifted ^ REDUCER : shifted;
}
const step = (interim: number, symbol: number) => timesAlpha(interim) ^ symbol;

function checkOf(values: readonly number[]): number {
  // The check c makes the final interim 0: α·interim + c = 0, and in characteristic 2, c = α·interim.
  return timesAlpha(values.reduce(step, 0));
}

const valueOf = (character: string) => PROTOCOL_ALPHABET.indexOf(character);

/** A new protocol, its ten characters ungrouped (as stored). */
export function newProtocol(): string {
  const values = Array.from({ length: DATA_LENGTH }, () => randomInt(PROTOCOL_ALPHABET.length));
  return [...values, checkOf(values)].map((value) => PROTOCOL_ALPHABET[value]).join("");
}

/** As people see it: two groups of five. */
export function formatProtocol(protocol: string): string {
  return `${protocol.slice(0, 5)}-${protocol.slice(5)}`;
}

/**
 * What a person typed, as stored, or null when it cannot be a protocol (wrong length, a character outside the
 * alphabet, a check that fails). Case, spaces and hyphens do not matter; O reads as 0 and I or L as 1, as
 * Crockford's base32 decodes them.
 */
export function parseProtocol(typed: string): string | null {
  const normalized = typed.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  if (normalized.length !== PROTOCOL_LENGTH) return null;
  const values = [...normalized].map(valueOf);
  if (values.some((value) => value < 0)) return null;
  return values.reduce(step, 0) === 0 ? normalized : null;
}
