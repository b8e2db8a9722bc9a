import "server-only";
import { createHash, createHmac } from "node:crypto";
import { log } from "./log";

/**
 * The security log (ASVS V16.2.1, V16.3.1–V16.3.3): one JSON line per event an investigator follows, each with the
 * same fields, so "who, through which door, from where" is one query away. Written by the app for requests (the
 * client's address as TRUSTED_PROXIES decides it) and by the operator's CLI for its changes (no address).
 */
export type SecurityEventName =
  | "auth.sign_in"
  | "auth.lockout"
  | "auth.sign_out"
  | "auth.session_ended"
  | "access.refused"
  | "account.created"
  | "account.identity_linked"
  | "account.identity_unlinked"
  | "account.role_changed";

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

/** The request's client address, where there is a request (pages, actions, route handlers, Auth.js's callbacks). */
async function requestAddress(): Promise<string | null> {
  try {
    const [{ headers }, { clientAddress }] = await Promise.all([
      import("next/headers"),
      import("./http/forwarded"),
    ]);
    return clientAddress(await headers());
  } catch {
    return null;
  }
}

async function authSecret(): Promise<string> {
  const [{ getConfig }, { resolveAuthSecret }] = await Promise.all([
    import("./env"),
    import("./auth/secret"),
  ]);
  return resolveAuthSecret(getConfig());
}

/** The line as written: every field present (null when it does not apply), so every line reads the same. */
export async function securityLine(
  event: SecurityEventName,
  fields: SecurityEventFields,
): Promise<Record<string, unknown>> {
  return {
    // Its facts first: none can stand in for one of the fields every line has.
    ...fields.details,
    category: "security",
    outcome: fields.outcome,
    door: fields.door,
    agentId: fields.agentId,
    address: fields.address === undefined ? await requestAddress() : fields.address,
    session: fields.sessionId ? sessionTag(fields.sessionId) : null,
    emailHash:
      fields.emailTyped !== undefined && !fields.agentId
        ? emailTag(fields.emailTyped, await authSecret())
        : null,
    reason: fields.reason ?? null,
  };
}

/**
 * Writes one security event. Never throws: a line that could not be composed is still written, without what failed,
 * and the request it belongs to goes on.
 */
export async function securityEvent(event: SecurityEventName, fields: SecurityEventFields): Promise<void> {
  let line: Record<string, unknown>;
  try {
    line = await securityLine(event, fields);
  } catch (error) {
    line = {
      category: "security",
      outcome: fields.outcome,
      door: fields.door,
      agentId: fields.agentId,
      error,
    };
  }
  const write = fields.outcome === "failure" ? log.warn : log.info;
  write(event, line);
}

const REPEAT_AFTER_MS = 10 * 60_000;
const MAX_REMEMBERED = 10_000;
const lastWritten = new Map<string, number>();

/**
 * The same event about the same thing (a replayed cookie, a forged one from one address) written once every few
 * minutes per instance, however often a browser or a script repeats the request: the log shows it, and cannot be
 * flooded with it.
 */
export async function securityEventOnce(
  key: string,
  event: SecurityEventName,
  fields: SecurityEventFields,
  now = Date.now(),
): Promise<void> {
  const last = lastWritten.get(key);
  if (last !== undefined && now - last < REPEAT_AFTER_MS) return;
  lastWritten.delete(key);
  if (lastWritten.size >= MAX_REMEMBERED) lastWritten.delete(lastWritten.keys().next().value!);
  lastWritten.set(key, now);
  await securityEvent(event, fields);
}
