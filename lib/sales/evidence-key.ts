import "server-only";
import { createPrivateKey, createPublicKey, hkdfSync, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, type JWK } from "jose";

/** PKCS #8 for an Ed25519 key (RFC 8410): this prefix, then the 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface EvidenceSigningKey {
  privateKey: KeyObject;
  /** The public half as a JWK with its `kid` (its RFC 7638 thumbprint), `alg` and `use`: what the JWKS publishes. */
  publicJwk: JWK & { kid: string };
}

let derived: { authSecret: string; key: Promise<EvidenceSigningKey> } | undefined;

async function derive(authSecret: string): Promise<EvidenceSigningKey> {
  const seed = Buffer.from(hkdfSync("sha256", authSecret, "", "partner-sales/dispute-pack/sign/v1", 32));
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const jwk = await exportJWK(createPublicKey(privateKey));
  const kid = await calculateJwkThumbprint(jwk, "sha256");
  return { privateKey, publicJwk: { ...jwk, kid, alg: "EdDSA", use: "sig" } };
}

/**
 * The key that signs dispute packs: an Ed25519 key derived from AUTH_SECRET (HKDF-SHA256, its own info string), so
 * every instance signs with the same key and nothing more is kept. Rotating AUTH_SECRET changes it: packs signed
 * before still verify against the public key they were published with (keep a copy of /api/v1/evidence-keys).
 */
export function evidenceSigningKey(authSecret: string): Promise<EvidenceSigningKey> {
  if (derived?.authSecret !== authSecret) derived = { authSecret, key: derive(authSecret) };
  return derived.key;
}
