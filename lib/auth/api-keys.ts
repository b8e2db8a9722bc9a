import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * What an API key may do. `sales:read-customer` adds the customers' data to what `sales:read` shows (LGPD: least
 * data by default); `sales:on-behalf` lets a sale name the agent it is made for.
 */
export const API_SCOPES = [
  "sales:write",
  "sales:read",
  "sales:read-customer",
  "sales:on-behalf",
  "plans:read",
] as const;
export type ApiScope = (typeof API_SCOPES)[number];

export const isApiScope = (value: string): value is ApiScope =>
  (API_SCOPES as readonly string[]).includes(value);

/**
 * A key reads `psk_<id>_<secret>`: `psk_` says whose it is (secret scanners and people recognise it), the 8-character
 * id names it in lists and logs (its prefix, `psk_<id>`), and the secret is 32 random bytes in base64url.
 */
const KEY_PATTERN = /^(psk_[a-z2-7]{8})_([A-Za-z0-9_-]{43})$/;
const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** Integration names: what the door (`api-key:<name>`) and the CLI show. */
export const INTEGRATION_NAME = /^[a-z0-9][a-z0-9_-]{1,39}$/;

export interface NewApiKey {
  /** The whole key: shown once to the operator, never stored. */
  key: string;
  prefix: string;
  secretHash: string;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export function generateApiKey(): NewApiKey {
  const id = [...randomBytes(8)].map((byte) => ID_ALPHABET[byte % 32]).join("");
  const prefix = `psk_${id}`;
  const key = `${prefix}_${randomBytes(32).toString("base64url")}`;
  return { key, prefix, secretHash: sha256(key) };
}

/** The prefix a presented key names, or null when it is no key of ours (then nothing is looked up). */
export function apiKeyPrefix(presented: string): string | null {
  return KEY_PATTERN.exec(presented)?.[1] ?? null;
}

/** Whether `presented` is the key whose hash was kept (in constant time). */
export function apiKeyMatches(presented: string, secretHash: string): boolean {
  const expected = Buffer.from(secretHash, "hex");
  const actual = createHash("sha256").update(presented).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
