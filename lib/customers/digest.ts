import "server-only";
import { createHash, createHmac } from "node:crypto";

/**
 * The key of the CPF digests that the sales of a customer who asked for erasure keep, so the operator can still
 * find them by CPF. Derived from AUTH_SECRET, which the database never holds: a copy of the database alone cannot
 * test CPFs against them. With the key, the masked digits leave a thousand candidates, so this is pseudonymisation
 * (LGPD art. 13 §4), said so in docs/customer-data.md. A new AUTH_SECRET makes those sales unfindable by CPF.
 */
export function customerDigestKey(authSecret: string): string {
  return createHmac("sha256", authSecret).update("partner-sales/customer-document-digest/v1").digest("hex");
}

/** sha256(key ‖ CPF digits) in hex: what the erasure stores (documentDigestSql, lib/db/queries/customer-data.ts). */
export function customerDocumentDigest(cpf: string, digestKey: string): string {
  return createHash("sha256").update(Buffer.from(digestKey, "hex")).update(cpf, "utf8").digest("hex");
}
