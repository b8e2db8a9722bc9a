import {
  createECDH,
  createHash,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  type KeyObject,
} from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ALLOWED_PORTAL } from "./environment";

// The stand-in portals' keys are derived from fixed labels, so the config (which writes the app's portals file)
// and every worker (which signs) agree without a private key committed to the repository.
const seed = (label: string) => createHash("sha256").update(`partner-sales e2e ${label}`).digest();

function p256(label: string): KeyObject {
  const d = seed(label);
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  const jwk = {
    kty: "EC",
    crv: "P-256",
    x: point.subarray(1, 33).toString("base64url"),
    y: point.subarray(33).toString("base64url"),
    d: d.toString("base64url"),
  };
  return createPrivateKey({ key: jwk, format: "jwk" });
}

export interface StandInPortal {
  issuer: string;
  alg: "ES256" | "HS256";
  signingKey: KeyObject;
  /** The domains of the e-mails its tokens may name (its entry's `emailDomains`). */
  emailDomains: string[];
}

/** The allowed portal's backend, with the recommended ES256 key pair (the app gets the public half). */
export const PORTAL: StandInPortal = {
  issuer: ALLOWED_PORTAL,
  alg: "ES256",
  signingKey: p256("allowed portal"),
  emailDomains: ["portal.example"],
};
const otherPortalSecret = seed("other portal").toString("base64url");
/** A second configured portal (HS256), whose key must not sign anyone in as the first portal's agents. */
export const OTHER_PORTAL: StandInPortal = {
  issuer: "https://crm.other-partner.example",
  alg: "HS256",
  signingKey: createSecretKey(Buffer.from(otherPortalSecret, "utf8")),
  emailDomains: ["other-partner.example"],
};

export const E2E_PORTALS_FILE = ".data/e2e-portals.json";

/** An ES256 portal's entry in EMBED_PORTALS_FILE: its issuer, the public half of its key, its domains. */
export function portalEntry(portal: StandInPortal, settings: { allowSupervisors?: boolean } = {}) {
  return {
    issuer: portal.issuer,
    alg: portal.alg,
    publicKey: createPublicKey(portal.signingKey).export({ format: "pem", type: "spki" }),
    emailDomains: portal.emailDomains,
    ...settings,
  };
}

/** Writes the EMBED_PORTALS_FILE the e2e app starts with (the same content however often it runs). */
export function writePortalsFile(root: string): string {
  const path = join(root, E2E_PORTALS_FILE);
  const content = JSON.stringify(
    [
      portalEntry(PORTAL),
      {
        issuer: OTHER_PORTAL.issuer,
        alg: OTHER_PORTAL.alg,
        secret: otherPortalSecret,
        emailDomains: OTHER_PORTAL.emailDomains,
      },
    ],
    null,
    2,
  );
  let current: string | undefined;
  try {
    current = readFileSync(path, "utf8");
  } catch {
    current = undefined;
  }
  if (current !== content) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return path;
}
