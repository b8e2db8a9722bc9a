import type { Config } from "@/lib/config/parse";
import type { AgentRole, IdentityKind } from "@/lib/db/schema";

/**
 * How someone came in. Each door reaches only the accounts linked to it and gives its own role: the password the
 * operator's (the CLI), the IdP its claim, a portal `agent` unless its configuration allows supervisors. Its kind is
 * also the session's method.
 */
export type Door = { kind: "password" } | { kind: IdentityKind; issuer: string };

/** The door as logs, sessions and the audit trail write it: `password`, `oidc:<issuer>`, `portal:<issuer>`. */
export function doorName(door: Door): string {
  return door.kind === "password" ? "password" : `${door.kind}:${door.issuer}`;
}

/** A door from its name; null for one written before doors had issuers (`oidc`, `portal`), or anything else. */
export function parseDoor(name: string): Door | null {
  if (name === "password") return { kind: "password" };
  const match = /^(oidc|portal):(.*)$/s.exec(name);
  return match ? { kind: match[1] as IdentityKind, issuer: match[2]! } : null;
}

/** Actors that are no agent: the operator's CLI and the app's own jobs. */
export const CLI_DOOR = "cli";
export const SYSTEM_DOOR = "system";

/**
 * Whether the configuration still opens a session's door, with the role it has: passwords still on, the same IdP,
 * the portal still configured and, for a supervisor's session, still allowed to open those. A door closed since
 * sign-in ends its sessions at their next request.
 */
export function doorOpen(
  name: string,
  role: AgentRole,
  config: Pick<Config, "passwordSignIn" | "oidc" | "embed">,
): boolean {
  const door = parseDoor(name);
  if (!door) return false;
  if (door.kind === "password") return config.passwordSignIn;
  if (door.kind === "oidc") return config.oidc?.issuer === door.issuer;
  const portal = config.embed.portals.find((each) => each.issuer === door.issuer);
  return Boolean(portal) && (role !== "supervisor" || portal!.allowsSupervisors);
}
