import type { IdentityKind, SessionMethod } from "@/lib/db/schema";

/**
 * How someone came in. Each door reaches only the accounts linked to it and gives its own role: the password the
 * operator's (the CLI), the IdP its claim, a portal `agent` unless its configuration allows supervisors.
 */
export type Door = { kind: "password" } | { kind: IdentityKind; issuer: string };

/** The door as logs and the audit trail write it: `password`, `oidc:<issuer>`, `portal:<issuer>`. */
export function doorName(door: Door): string {
  return door.kind === "password" ? "password" : `${door.kind}:${door.issuer}`;
}

export function sessionMethodOf(door: Door): SessionMethod {
  return door.kind;
}

/** Actors that are no agent: the operator's CLI and the app's own jobs. */
export const CLI_DOOR = "cli";
export const SYSTEM_DOOR = "system";
