import { Secret, TOTP } from "otpauth";
import QRCode from "qrcode";

/** RFC 6238 as every authenticator app reads it: SHA-1, six digits, 30-second steps. */
const PERIOD = 30;
const DIGITS = 6;
/** A code from the step before or after is accepted too: a phone's clock a little off, a code typed as it turned. */
const WINDOW = 1;
const ISSUER = "Partner Sales";

/** A new shared secret: 160 random bits (RFC 4226's recommendation), as base32 for the app and for typing. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, accountName: string): string {
  return new TOTP({
    issuer: ISSUER,
    label: accountName,
    secret: Secret.fromBase32(secret),
    digits: DIGITS,
    period: PERIOD,
  }).toString();
}

/** Only the six digits count: spaces and a dash typed between them are dropped. */
export function normalizeTotpCode(typed: string): string | null {
  const digits = typed.replace(/[\s-]/g, "");
  return /^\d{6}$/.test(digits) ? digits : null;
}

/**
 * The time step of the code, when it is one of this secret's within the window; null otherwise. The caller takes the
 * step (lib/db/queries/second-factors.ts `takeTotpStep`), so that a code is accepted once (ASVS V6.5.1).
 */
export function totpStep(secret: string, code: string, now: number): number | null {
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(secret),
    digits: DIGITS,
    period: PERIOD,
    timestamp: now,
    window: WINDOW,
  });
  return delta === null ? null : TOTP.counter({ period: PERIOD, timestamp: now }) + delta;
}

/** The code of `secret` at `now` (tests, and nothing else: the app never shows a code). */
export function totpCode(secret: string, now: number): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), digits: DIGITS, period: PERIOD, timestamp: now });
}

/**
 * The QR code as one SVG path, drawn by the app (no outside service ever sees the secret): the modules of the matrix
 * in a `size`×`size` grid with a four-module quiet zone.
 */
export function qrPath(text: string): { size: number; path: string } {
  const qr = QRCode.create(text, { errorCorrectionLevel: "M" });
  const { size, data } = qr.modules;
  const quiet = 4;
  let path = "";
  for (let row = 0; row < size; row++) {
    for (let column = 0; column < size; column++) {
      if (data[row * size + column]) path += `M${column + quiet} ${row + quiet}h1v1h-1z`;
    }
  }
  return { size: size + quiet * 2, path };
}
