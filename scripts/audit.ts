import { parseArgs } from "node:util";
import { listAuditEvents } from "../lib/db/queries/audit-events";
import { runCli, UsageError, type CliContext } from "./cli";

const USAGE = `Print the audit trail: who did what to personal data, oldest first.

  npm run audit -- list [--since YYYY-MM-DD | --since 2026-11-24T08:00:00Z] [--limit N]

Records erasures (retention and customers' requests), look-ups and exports of a customer's data, exports of the
history, unknown sales settled by supervisors, and agents' accounts changed with npm run agents. A day starts at
midnight UTC; a time needs its zone (Z or ±hh:mm). --limit defaults to 1,000; a cut list says where to go on.`;

function parseSince(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const at = new Date(day ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(at.getTime()) || (!day && !/(Z|[+-]\d{2}:\d{2})$/.test(value)))
    throw new UsageError(`--since: "${value}" is not a day (YYYY-MM-DD) or a time with its zone.`);
  return at;
}

async function run(command: string, args: string[], { db }: CliContext): Promise<string> {
  if (command !== "list") throw new UsageError(`Unknown command "${command}".`);
  const { values } = parseArgs({
    args,
    options: { since: { type: "string" }, limit: { type: "string" } },
    strict: true,
  });
  const limit = values.limit === undefined ? 1_000 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000)
    throw new UsageError("--limit is a whole number from 1 to 100000.");
  // One more than asked says whether the list was cut.
  const events = await listAuditEvents(await db(), { since: parseSince(values.since), limit: limit + 1 });
  if (events.length === 0) return "No audit events.";
  const lines = events
    .slice(0, limit)
    .map((event) =>
      [
        event.at.toISOString(),
        event.action,
        event.agentEmail ? `${event.actor}:${event.agentEmail}` : event.actor,
        event.protocol ?? "-",
        event.reason === null ? "-" : JSON.stringify(event.reason),
        JSON.stringify(event.details),
      ].join("  "),
    );
  if (events.length > limit) {
    lines.push(
      `(cut at ${limit}: go on with --since ${events[limit]!.at.toISOString()}, or a larger --limit)`,
    );
  }
  return lines.join("\n");
}

await runCli(USAGE, run);
