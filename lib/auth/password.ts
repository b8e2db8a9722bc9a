import "server-only";
import { randomBytes } from "node:crypto";
import { hash, verify, type Algorithm } from "@node-rs/argon2";
import { BoundedQueue } from "@/lib/bounded-queue";

export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/lib/validation/sign-in";

// OWASP's argon2id parameters: 19 MiB of memory, 2 iterations, 1 degree of parallelism.
const ARGON2ID = {
  algorithm: 2 as Algorithm.Argon2id,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

// argon2 runs on Node's thread pool (4 threads), which DNS look-ups and file I/O share: two hashes at a time leave
// it room. The line of waiters needs no bound of its own: password sign-ins are admitted four at a time by the
// sign-in gate (lib/auth/sign-in.ts), which tells a flood "busy" before it reaches the database or this queue.
const hashing = new BoundedQueue(2, Number.POSITIVE_INFINITY);

/** Through the same two-at-a-time line as checks: ten recovery codes hashed at once wait their turn. */
export function hashPassword(password: string): Promise<string> {
  return hashing.run(() => hash(password, ARGON2ID));
}

// Verified when the e-mail is unknown too, so a response's timing does not tell which accounts exist.
let decoyHash: Promise<string> | undefined;

/** Whether `password` matches `storedHash`; with no hash, a decoy is checked and the answer is no. */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  return hashing.run(async () => {
    if (!storedHash) {
      // Not hashPassword: this already holds a place in the line, and would wait for a second one.
      decoyHash ??= hash(randomBytes(16).toString("hex"), ARGON2ID);
      await verify(await decoyHash, password).catch(() => false);
      return false;
    }
    return verify(storedHash, password).catch(() => false);
  });
}

/** A readable random password for new accounts: 4 groups of 4 letters and digits, about 80 bits. */
export function generatePassword(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyzACDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = randomBytes(16);
  const characters = Array.from(bytes, (byte) => alphabet[byte % alphabet.length]);
  return [0, 4, 8, 12].map((start) => characters.slice(start, start + 4).join("")).join("-");
}
