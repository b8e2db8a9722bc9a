import { userInfo } from "node:os";
import { join } from "node:path";
import nextEnv from "@next/env";
import { ConfigError, parseConfig, type Config } from "../lib/config/parse";
import { DataDirBusyError, DataDirUnsafeError, openDatabase, type Database } from "../lib/db/connection";
import { CLI_DOOR } from "../lib/auth/doors";
import type { AuditActor } from "../lib/db/queries/audit-events";
import { formatLogLine, scrubPersonalData } from "../lib/log";
import { securityLine, type SecurityEventFields, type SecurityEventName } from "../lib/security-log/line";

/**
 * The operator's changes in the security log, as the app writes its own: one JSON line each, on standard error (the
 * answer stays alone on standard output). No client address: it was the CLI, on this machine.
 */
export function cliSecurityEvent(
  event: SecurityEventName,
  fields: Omit<SecurityEventFields, "address">,
): void {
  const line = securityLine(fields, { address: null, emailHash: null });
  process.stderr.write(`${formatLogLine("info", event, line)}\n`);
}

/** A mistake in the command line: the message and the usage go to stderr, exit 2. */
export class UsageError extends Error {}

/** A refusal the operator can act on (an account that already exists, a job running elsewhere): exit 1. */
export class CommandError extends Error {}

export interface CliContext {
  /** The database, opened on first use (with the embedded one, through the running app's socket). */
  db: () => Promise<Database>;
  config: Config;
  /** Who runs the command, as the audit trail names them: "cli:<operating-system user>", through the door "cli". */
  operator: AuditActor;
}

const root = join(import.meta.dirname, "..");

function operator(): AuditActor {
  let name = "unknown";
  try {
    name = userInfo().username;
  } catch {
    // No entry for this uid (a container's): the trail still says it was the CLI.
  }
  return { actor: `cli:${name}`, door: CLI_DOOR };
}

/**
 * The operator's command-line tools (`npm run agents`, `customers`, `audit`): the environment as the app reads it
 * (.env files, then the configuration's checks), the database opened as a tool, one answer on stdout, and exit
 * codes 0 (done), 1 (refused or configuration error) and 2 (usage).
 */
export async function runCli(
  usage: string,
  run: (command: string, args: string[], context: CliContext) => Promise<string>,
): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (!command || command === "help" || command === "--help") {
    console.log(usage);
    return;
  }
  nextEnv.loadEnvConfig(root, false, { info: () => {}, error: console.error });
  let handle: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    const config = parseConfig(process.env, root);
    const db = async () => {
      handle ??= await openDatabase({
        databaseUrl: config.databaseUrl,
        migrationUrl: config.databaseMigrationUrl,
        dataDir: config.dataDir,
        role: "tool",
      });
      return handle.db;
    };
    console.log(await run(command, args, { db, config, operator: operator() }));
  } catch (error) {
    // parseArgs's own errors (unknown option, missing value) are TypeErrors with a code.
    if (error instanceof UsageError || (error instanceof TypeError && "code" in error)) {
      console.error(`${error.message}\n\n${usage}`);
      process.exitCode = 2;
    } else if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exitCode = 1;
    } else if (
      error instanceof DataDirBusyError ||
      error instanceof DataDirUnsafeError ||
      error instanceof CommandError
    ) {
      console.error(error.message);
      process.exitCode = 1;
    } else {
      // A database error's text ends with the statement's parameters (a CPF, a password hash): only its cause's
      // message is printed, as the app's log would (scrubbed).
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const message = cause instanceof Error ? cause.message : String(cause);
      console.error(`Failed: ${scrubPersonalData(message.split("\n")[0]!)}`);
      process.exitCode = 1;
    }
  } finally {
    await handle?.close();
  }
}

/** Why the operator acts, for the audit trail: a ticket, never a person's data (the trail is kept as it is). */
export function optionalReason(value: string | undefined): string | null {
  if (value === undefined) return null;
  const reason = value.trim();
  if (!reason) throw new UsageError("--reason says why: the request's ticket, in a few words.");
  if (reason.length > 500) throw new UsageError("--reason has at most 500 characters.");
  if (/[\u0000-\u001f\u007f-\u009f]/.test(reason))
    throw new UsageError("--reason must not hold control characters.");
  if (scrubPersonalData(reason) !== reason)
    throw new UsageError(
      "--reason must not hold an e-mail, phone or document number: give the ticket instead.",
    );
  return reason;
}

const DURATION = /^(\d{1,4})([mhd])$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** An option's duration in ms: minutes, hours or days, such as 30m, 24h or 90d. */
export function duration(option: string, value: string): number {
  const match = DURATION.exec(value.trim());
  if (!match || Number(match[1]) === 0) {
    throw new UsageError(`${option} is a duration such as 30m, 24h or 90d (got "${value}").`);
  }
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
