import "server-only";
import { randomBytes } from "node:crypto";
import { seal, unseal } from "@/lib/auth/second-factor/sealed";
import type { WebhookEndpoint } from "@/lib/db/schema";

/** A new signing secret in Standard Webhooks' form: `whsec_` and 32 random bytes in base64. */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

/** Sealed with AUTH_SECRET and bound to its endpoint: a sealed secret copied to another row does not open. */
const context = (endpointId: string) => `webhook-secret:${endpointId}`;

export const sealWebhookSecret = (secret: string, authSecret: string, endpointId: string): string =>
  seal(secret, authSecret, context(endpointId));

/**
 * The secrets that sign a delivery now: the current one, and the previous one while its overlap lasts. Empty if the
 * current one does not open (AUTH_SECRET changed): nothing is sent unsigned.
 */
export function signingSecrets(
  endpoint: Pick<WebhookEndpoint, "id" | "secretSealed" | "previousSecretSealed" | "previousSecretUntil">,
  authSecret: string,
  now: Date,
): string[] {
  const current = unseal(endpoint.secretSealed, authSecret, context(endpoint.id));
  if (!current) return [];
  const previous =
    endpoint.previousSecretSealed && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now
      ? unseal(endpoint.previousSecretSealed, authSecret, context(endpoint.id))
      : null;
  return previous ? [current, previous] : [current];
}
