import { createHash, createHmac } from "node:crypto";
import type { EndedSession } from "@/lib/db/queries/sessions";

/**
 * The security log's line (ASVS V16.2.1, V16.3.1–V16.3.3): one JSON line per event an investigator follows, each
 * with the same fields, so "who, through which door, from where" is one query away. Pure: the app writes it for
 * requests (./index.ts works out the client's address), the operator's CLI for its changes (no address).
 */
export type SecurityEventName =
  | "auth.sign_in"
  | "auth.lockout"
  /** A right password whose sign-in has steps left (a second factor, a new password): no session yet. */
  | "auth.password_verified"
  /** A second factor checked at sign-in (`details.factor`: totp, webauthn, recovery_code), or refused. */
  | "auth.second_factor"
  /** The current password asked again before a change to the account's password or factors (ASVS V7.5.1). */
  | "auth.reauthentication"
  | "auth.sign_out"
  | "auth.session_ended"
  | "access.refused"
  | "account.created"
  | "account.identity_linked"
  | "account.identity_unlinked"
  | "account.role_changed"
  | "account.password_changed"
  | "account.second_factor_added"
  | "account.second_factor_removed"
  /** The operator removed every factor and recovery code (`npm run agents -- reset-second-factor`). */
  | "account.second_factor_reset"
  | "account.recovery_codes_generated"
  /** An operator made, revoked or set to expire an integration's API key (`npm run api-keys`). */
  | "api_key.created"
  | "api_key.revoked"
  | "api_key.expiry_set";

export interface SecurityEventFields {
  outcome: "success" | "failure";
  /** `password`, `oidc:<issuer>`, `portal:<issuer>`, `cli`, `system`; null when no door was reached. */
  door: string | null;
  /** The account the event is about (null: none known, e.g. a failed sign-in on an e-mail no account has). */
  agentId: string | null;
  /** The client's address; undefined: this request's, as the trusted-proxy rules decide it; null: none (CLI). */
  address?: string | null;
  /** The session concerned: logged as a short hash, never as the id the cookie carries. */
  sessionId?: string | null;
  /** What was typed to sign in when no account was found: logged as a keyed hash, never as the address. */
  emailTyped?: string;
  /** Why (a refusal's or an ending's code). */
  reason?: string;
  /** Small facts of the event: a role, a scope, a count. Never customer data, a secret or a token. */
  details?: Record<string, string | number | boolean | null>;
}

const TAG_LENGTH = 16;

/** A short, stable name for a session in the log: the same session always reads the same, and the id stays secret. */
export function sessionTag(sessionId: string): string {
  return createHash("sha256").update(`partner-sales/session/${sessionId}`).digest("hex").slice(0, TAG_LENGTH);
}

/**
 * A keyed hash of an e-mail typed at sign-in (the key derives from AUTH_SECRET, which the log never holds): repeated
 * guesses at one address group together, and the log holds no address anyone could read back.
 */
export function emailTag(email: string, authSecret: string): string {
  const key = createHmac("sha256", authSecret).update("partner-sales/security-log/email/v1").digest();
  return createHmac("sha256", key).update(email.trim().toLowerCase()).digest("hex").slice(0, TAG_LENGTH);
}

/**
 * The line's fields as written: every one present (null when it does not apply), so every line reads the same. The
 * address and the e-mail's hash come worked out: the writer knows the request and the key.
 */
export function securityLine(
  fields: SecurityEventFields,
  worked: { address: string | null; emailHash: string | null },
): Record<string, unknown> {
  return {
    // Its facts first: none can stand in for one of the fields every line has.
    ...fields.details,
    category: "security",
    outcome: fields.outcome,
    door: fields.door,
    agentId: fields.agentId,
    address: worked.address,
    session: fields.sessionId ? sessionTag(fields.sessionId) : null,
    emailHash: worked.emailHash,
    reason: fields.reason ?? null,
  };
}

/** A session that ended (whoever ended it, or its time running out): a sign-out, or the end of a session. */
export function endedSessionEvent(session: EndedSession): [SecurityEventName, SecurityEventFields] {
  return [
    session.reason === "signed_out" ? "auth.sign_out" : "auth.session_ended",
    {
      outcome: "success",
      door: session.door,
      agentId: session.agentId,
      sessionId: session.id,
      reason: session.reason,
      details: { endedAt: session.endedAt.toISOString() },
    },
  ];
}
