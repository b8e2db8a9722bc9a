import "server-only";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import type { SecondFactor } from "@/lib/db/schema";

/** The relying party is the app where people reach it (AUTH_URL): its host names the keys' credentials. */
export function relyingParty(publicUrl: string): { id: string; origin: string; name: string } {
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin, name: "Partner Sales" };
}

const TIMEOUT_MS = 120_000;

/** Options for `navigator.credentials.create`: a key or passkey for this account, not one it already has. */
export function registrationOptions(
  rp: ReturnType<typeof relyingParty>,
  agent: { id: string; email: string; name: string },
  existing: readonly SecondFactor[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: agent.email,
    userDisplayName: agent.name,
    userID: new TextEncoder().encode(agent.id),
    timeout: TIMEOUT_MS,
    attestationType: "none",
    excludeCredentials: existing
      .filter((factor) => factor.credentialId)
      .map((factor) => ({ id: factor.credentialId!, transports: factor.transports ?? undefined })),
    // A key the PC or a USB key holds; the PIN or fingerprint where it has one (a password came first already).
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  });
}

export type KeyRegistration = Pick<SecondFactor, "credentialId" | "publicKey" | "signCount" | "transports">;

/** The key's public part when the browser's answer signs the challenge for this site; null otherwise. */
export async function verifyRegistration(
  rp: ReturnType<typeof relyingParty>,
  response: RegistrationResponseJSON,
  expectedChallenge: string,
): Promise<KeyRegistration | null> {
  try {
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
    if (!result.verified) return null;
    const { credential } = result.registrationInfo;
    return {
      credentialId: credential.id,
      publicKey: isoBase64URL.fromBuffer(credential.publicKey),
      signCount: credential.counter,
      transports: credential.transports ?? null,
    };
  } catch {
    return null; // malformed, another origin's, another challenge's
  }
}

/** Options for `navigator.credentials.get`: one of this account's keys must sign. */
export function authenticationOptions(
  rp: ReturnType<typeof relyingParty>,
  keys: readonly SecondFactor[],
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: rp.id,
    timeout: TIMEOUT_MS,
    userVerification: "preferred",
    allowCredentials: keys
      .filter((key) => key.credentialId)
      .map((key) => ({ id: key.credentialId!, transports: key.transports ?? undefined })),
  });
}

/** The key's new signature counter when the assertion is this key's over the challenge; null otherwise. */
export async function verifyAssertion(
  rp: ReturnType<typeof relyingParty>,
  response: AuthenticationResponseJSON,
  expectedChallenge: string,
  key: SecondFactor,
): Promise<{ signCount: number } | null> {
  if (!key.credentialId || !key.publicKey) return null;
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: key.credentialId,
        publicKey: isoBase64URL.toBuffer(key.publicKey),
        counter: key.signCount ?? 0,
        transports: key.transports ?? undefined,
      },
      requireUserVerification: false,
    });
    // The library refuses a counter that went backwards (a cloned key) by throwing.
    return result.verified ? { signCount: result.authenticationInfo.newCounter } : null;
  } catch {
    return null;
  }
}
