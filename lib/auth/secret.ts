import "server-only";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "@/lib/config/parse";

/**
 * AUTH_SECRET is required in live mode (the configuration refuses to start without it). In sandbox mode one
 * is generated once and kept in DATA_DIR, so sessions survive restarts without any set-up.
 */
export function resolveAuthSecret(config: Pick<Config, "authSecret" | "dataDir">): string {
  if (config.authSecret) return config.authSecret;
  // Read on every session check: the file is written once and never changes, so it is read once per directory.
  let secret = readSecrets.get(config.dataDir);
  if (secret === undefined) readSecrets.set(config.dataDir, (secret = readOrCreateSecret(config.dataDir)));
  return secret;
}

const readSecrets = new Map<string, string>();

function readOrCreateSecret(dataDir: string): string {
  const path = join(dataDir, "auth-secret");
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(48).toString("base64url");
    try {
      writeFileSync(path, secret, { mode: 0o600, flag: "wx" });
      return secret;
    } catch {
      // Another process wrote it first: use theirs.
      return readFileSync(path, "utf8").trim();
    }
  }
}
