import { createHash } from "node:crypto";

/**
 * What a password session keeps of the password it was opened with: SHA-256 of the account's argon2 hash, as hex.
 * The session check compares it with the account's hash now (lib/db/queries/sessions.ts), so a new password ends
 * every session the old one opened, one still being opened while the password changed included.
 */
export function passwordCredential(passwordHash: string): string {
  return createHash("sha256").update(passwordHash, "utf8").digest("hex");
}
