import { describe, expect, it } from "vitest";
import { parseCredentialJson } from "./credential-json";
import { normalizeRecoveryCode } from "./recovery-codes";
import { seal, unseal } from "./sealed";
import { newTotpSecret, normalizeTotpCode, qrPath, totpCode, totpStep, totpUri } from "./totp";

describe("TOTP", () => {
  const secret = newTotpSecret();
  const now = Date.parse("2026-11-28T12:00:10Z");

  it("makes 160-bit base32 secrets and an otpauth URI apps read", () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const uri = new URL(totpUri(secret, "rita@parceira.example"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(secret);
    expect(uri.searchParams.get("issuer")).toBe("Partner Sales");
    expect(uri.searchParams.get("digits")).toBe("6");
    expect(uri.searchParams.get("period")).toBe("30");
  });

  it("names a code's time step within one step either side, and nothing further", () => {
    const step = Math.floor(now / 30_000);
    expect(totpStep(secret, totpCode(secret, now), now)).toBe(step);
    expect(totpStep(secret, totpCode(secret, now - 30_000), now)).toBe(step - 1);
    expect(totpStep(secret, totpCode(secret, now + 30_000), now)).toBe(step + 1);
    expect(totpStep(secret, totpCode(secret, now + 90_000), now)).toBeNull();
    expect(totpStep(newTotpSecret(), totpCode(secret, now), now)).toBeNull();
  });

  it("reads the six digits typed with spaces or a dash, and nothing else", () => {
    expect(normalizeTotpCode(" 123 456 ")).toBe("123456");
    expect(normalizeTotpCode("123-456")).toBe("123456");
    for (const typed of ["12345", "1234567", "12a456", "", "١٢٣٤٥٦"])
      expect(normalizeTotpCode(typed)).toBeNull();
  });

  it("draws the QR code as one path, quiet zone included", () => {
    const { size, path } = qrPath(totpUri(secret, "rita@parceira.example"));
    expect(size).toBeGreaterThanOrEqual(33 + 8);
    expect(path).toMatch(/^(M\d+ \d+h1v1h-1z)+$/);
  });
});

describe("recovery codes", () => {
  it("compare without case, spaces or dashes, with the letters people mistake read as digits", () => {
    expect(normalizeRecoveryCode("abcde-fghjk")).toBe("ABCDEFGHJK");
    expect(normalizeRecoveryCode(" 0o1il 23456 ")).toBe("0011123456");
    for (const typed of ["ABCDE-FGHJ", "ABCDE-FGHJKM", "ABCDE-FGHJU", ""])
      expect(normalizeRecoveryCode(typed)).toBeNull();
  });
});

describe("sealed secrets", () => {
  const key = "auth-secret-for-sealing-0123456789abcdef";

  it("open only with the same AUTH_SECRET and for the same row", () => {
    const sealed = seal("JBSWY3DPEHPK3PXP", key, "totp:agent-1");
    expect(sealed).not.toContain("JBSWY3DPEHPK3PXP");
    expect(seal("JBSWY3DPEHPK3PXP", key, "totp:agent-1")).not.toBe(sealed);
    expect(unseal(sealed, key, "totp:agent-1")).toBe("JBSWY3DPEHPK3PXP");
    expect(unseal(sealed, `${key}x`, "totp:agent-1")).toBeNull();
    expect(unseal(sealed, key, "totp:agent-2")).toBeNull();
    const [version, iv, body, tag] = sealed.split(".");
    const flipped = `${body![0] === "A" ? "B" : "A"}${body!.slice(1)}`;
    expect(unseal([version, iv, flipped, tag].join("."), key, "totp:agent-1")).toBeNull();
    expect(unseal("garbage", key, "totp:agent-1")).toBeNull();
  });
});

describe("a WebAuthn answer as an action receives it", () => {
  it("is a public-key credential's JSON of at most 16 KiB, or nothing", () => {
    const answer = { id: "abc", rawId: "abc", type: "public-key", response: {} };
    expect(parseCredentialJson(JSON.stringify(answer))).toEqual(answer);
    for (const value of [
      undefined,
      42,
      "not json",
      "[]",
      "null",
      JSON.stringify({ ...answer, type: "password" }),
      JSON.stringify({ ...answer, response: "x" }),
      JSON.stringify({ ...answer, id: 1 }),
      JSON.stringify({ ...answer, padding: "x".repeat(20_000) }),
    ]) {
      expect(parseCredentialJson(value)).toBeNull();
    }
  });
});
