import "server-only";
import { headers } from "next/headers";
import { resolveAuthSecret } from "@/lib/auth/secret";
import { getConfig } from "@/lib/env";
import { clientAddress } from "@/lib/http/forwarded";
import { log } from "@/lib/log";
import { emailTag, securityLine, type SecurityEventFields, type SecurityEventName } from "./line";

/** This request's client address (pages, actions, route handlers, Auth.js's callbacks); null outside a request. */
async function requestAddress(): Promise<string | null> {
  let requestHeaders: Headers;
  try {
    requestHeaders = await headers();
  } catch {
    // No request in scope (start-up's own work): there is no client.
    return null;
  }
  return clientAddress(requestHeaders);
}

/**
 * Writes one security event for the app. Never throws: a line that could not be composed is still written, without
 * what failed, and the request it belongs to goes on.
 */
export async function securityEvent(event: SecurityEventName, fields: SecurityEventFields): Promise<void> {
  let line: Record<string, unknown>;
  try {
    line = securityLine(fields, {
      address: fields.address === undefined ? await requestAddress() : fields.address,
      emailHash:
        fields.emailTyped !== undefined && !fields.agentId
          ? emailTag(fields.emailTyped, resolveAuthSecret(getConfig()))
          : null,
    });
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
 * flooded with it. True when this call wrote it.
 */
export async function securityEventOnce(
  key: string,
  event: SecurityEventName,
  fields: SecurityEventFields,
  now = Date.now(),
): Promise<boolean> {
  const last = lastWritten.get(key);
  if (last !== undefined && now - last < REPEAT_AFTER_MS) return false;
  lastWritten.delete(key);
  if (lastWritten.size >= MAX_REMEMBERED) lastWritten.delete(lastWritten.keys().next().value!);
  lastWritten.set(key, now);
  await securityEvent(event, fields);
  return true;
}
