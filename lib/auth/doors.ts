import type { Config } from "@/lib/config/parse";
import type { AgentRole, IdentityKind, SessionMethod } from "@/lib/db/schema";

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

/**
 * Whether the configuration still opens a session's door, with the role it has: passwords still on, the same IdP,
 * the portal still configured and, for a supervisor's session, still allowed to open those. A door closed since
 * sign-in ends its sessions at their next request.
 */
export function doorOpen(
  door: string,
  role: AgentRole,
  config: Pick<Config, "passwordSignIn" | "oidc" | "embed">,
): boolean {
  if (door === "password") return config.passwordSignIn;
  if (door.startsWith("oidc:")) return config.oidc?.issuer === door.slice("oidc:".length);
  if (!door.startsWith("portal:")) return false;
  const portal = config.embed.portals.find((each) => each.issuer === door.slice("portal:".length));
  return Boolean(portal) && (role !== "supervisor" || portal!.allowsSupervisors);
}
