import { randomBytes } from "node:crypto";

export type TokenCheck = "valid" | "unknown" | "revoked" | "expired";

interface IssuedToken {
  expiresAt: number;
  revoked: boolean;
}

export class TokenStore {
  private readonly tokens = new Map<string, IssuedToken>();

  issue(lifetimeSeconds: number, now = Date.now()): string {
    this.forgetExpired(now);
    const token = randomBytes(32).toString("base64url");
    this.tokens.set(token, { expiresAt: now + lifetimeSeconds * 1000, revoked: false });
    return token;
  }

  check(token: string, now = Date.now()): TokenCheck {
    const issued = this.tokens.get(token);
    if (!issued) return "unknown";
    if (issued.revoked) return "revoked";
    return now < issued.expiresAt ? "valid" : "expired";
  }

  revokeAll(): number {
    let revoked = 0;
    for (const issued of this.tokens.values()) {
      if (!issued.revoked) revoked++;
      issued.revoked = true;
    }
    return revoked;
  }

  // Expired tokens are kept for a minute so a late request still hears "expired" rather than "unknown".
  private forgetExpired(now: number): void {
    for (const [token, issued] of this.tokens) {
      if (issued.expiresAt + 60_000 < now) this.tokens.delete(token);
    }
  }
}
