import "server-only";
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";

let derived: { authSecret: string; key: Buffer } | undefined;

/**
 * The key that seals second-factor secrets: derived from AUTH_SECRET, never the secret itself. Derived once per
 * AUTH_SECRET, not per use: a webhook delivery opens its endpoint's sealed secret each time.
 */
function sealingKey(authSecret: string): Buffer {
  if (derived?.authSecret !== authSecret) {
    derived = {
      authSecret,
      key: Buffer.from(hkdfSync("sha256", authSecret, "", "partner-sales/second-factor/seal/v1", 32)),
    };
  }
  return derived.key;
}

/**
 * Seals a secret the app must read back (a TOTP shared secret) with AES-256-GCM, bound to what it is (`context`, e.g.
 * the factor's id), so a sealed value copied onto another row does not open. ASVS V11.3.3, V6.5.? (a database dump
 * holds no usable authenticator secret).
 */
export function seal(plain: string, authSecret: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(authSecret), iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [
    VERSION,
    iv.toString("base64url"),
    body.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
  ].join(".");
}

/** The sealed secret; null when it does not open (another AUTH_SECRET, another row, tampered with). */
export function unseal(sealed: string, authSecret: string, context: string): string | null {
  const [version, iv, body, tag] = sealed.split(".");
  if (version !== VERSION || !iv || !body || !tag) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealingKey(authSecret), Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    return null;
  }
}
