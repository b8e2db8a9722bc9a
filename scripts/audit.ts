import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ChainVerifier, checkLoggedHead, type ChainBreak, type HeadCheck } from "../lib/audit/chain";
import type { Database } from "../lib/db/connection";
import { chainRowAt, listAuditEvents, readChain } from "../lib/db/queries/audit-events";
import { CommandError, runCli, UsageError, type CliContext } from "./cli";

const USAGE = `The audit trail: who did what to personal data and to accounts, oldest first.

  npm run audit -- list [--since YYYY-MM-DD | --since 2026-11-24T08:00:00Z] [--limit N]
  npm run audit -- verify [--log FILE ...] [--head SEQ:HASH ...]

list: erasures (retention and customers' requests), look-ups and exports of a customer's data, exports of the
history, unknown sales settled by supervisors, accounts created, identities linked and unlinked, roles changed and
agents' accounts changed with npm run agents; each row says who acted and through which door. A day starts at
midnight UTC; a time needs its zone (Z or ±hh:mm). --limit defaults to 1,000; a cut list says where to go on.

verify: checks the hash chain (each row's hash covers its content and the row before it) and names the first row
edited, deleted or inserted. The app logs the newest row's place and hash (audit.chain_head) every few minutes:
--log reads those lines from the app's log files, --head takes one by hand, and a trail that ends before one of
them had its last rows deleted. Exit 0 when everything holds, 1 otherwise.`;

function parseSince(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const at = new Date(day ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(at.getTime()) || (!day && !/(Z|[+-]\d{2}:\d{2})$/.test(value)))
    throw new UsageError(`--since: "${value}" is not a day (YYYY-MM-DD) or a time with its zone.`);
  return at;
}

/** "agent:<id> via portal:<issuer>": who acted and how they came in (rows from before doors were kept: no "via"). */
function actorOf(event: { actor: string; agentId: string | null; door: string | null }): string {
  const who = event.actor === "agent" && event.agentId ? `agent:${event.agentId}` : event.actor;
  return event.door && event.door !== "cli" && event.door !== "system" ? `${who} via ${event.door}` : who;
}

async function list(db: Database, args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: { since: { type: "string" }, limit: { type: "string" } },
    strict: true,
  });
  const limit = values.limit === undefined ? 1_000 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000)
    throw new UsageError("--limit is a whole number from 1 to 100000.");
  // One more than asked says whether the list was cut.
  const events = await listAuditEvents(db, { since: parseSince(values.since), limit: limit + 1 });
  if (events.length === 0) return "No audit events.";
  const lines = events
    .slice(0, limit)
    .map((event) =>
      [
        event.at.toISOString(),
        `#${event.seq}`,
        event.action,
        actorOf(event),
        event.agentEmail ?? "-",
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

const HEAD = /^(\d{1,18}):([0-9a-f]{64})$/;

/** The heads the app logged (`audit.chain_head` lines in JSON log files). */
function headsFromLog(path: string): { seq: number; hash: string }[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(
      `--log: ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}).`,
    );
  }
  return text.split("\n").flatMap((line) => {
    if (!line.includes('"audit.chain_head"')) return [];
    try {
      const entry = JSON.parse(line) as { event?: unknown; seq?: unknown; hash?: unknown };
      const head = `${String(entry.seq)}:${String(entry.hash)}`;
      return entry.event === "audit.chain_head" && HEAD.test(head)
        ? [{ seq: Number(entry.seq), hash: String(entry.hash) }]
        : [];
    } catch {
      return [];
    }
  });
}

function describeBreak(broken: ChainBreak): string {
  switch (broken.problem) {
    case "missing":
      return broken.nextSeq === broken.seq + 1
        ? `row #${broken.seq} is missing (deleted): the trail goes from #${broken.seq - 1} to #${broken.nextSeq}.`
        : `rows #${broken.seq} to #${broken.nextSeq - 1} are missing (deleted): the trail goes from #${broken.seq - 1} to #${broken.nextSeq}.`;
    case "edited":
      return `row #${broken.seq} (id ${broken.row.id}, ${broken.row.at}, ${broken.row.action}) was changed after it was written: its content no longer matches its hash.`;
    case "unlinked":
      return `row #${broken.seq} (id ${broken.row.id}, ${broken.row.at}, ${broken.row.action}) does not follow row #${broken.seq - 1}: one of the two was rewritten with a hash of its own, or a row was inserted there.`;
  }
}

function describeHead(check: Exclude<HeadCheck, { ok: true }>): string {
  return check.problem === "tail_missing"
    ? `the log saw row #${check.loggedSeq}, but the trail ends at #${check.lastSeq}: rows #${check.lastSeq + 1} to #${check.loggedSeq} (at least) were deleted.`
    : `row #${check.loggedSeq} has another hash than the log saw: the trail was rewritten there or before.`;
}

const BATCH = 10_000;

async function verify(db: Database, args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: { log: { type: "string", multiple: true }, head: { type: "string", multiple: true } },
    strict: true,
  });
  const logged = [
    ...(values.head ?? []).map((head) => {
      const match = HEAD.exec(head);
      if (!match) throw new UsageError(`--head: "${head}" is not SEQ:HASH (a row number and 64 hex digits).`);
      return { seq: Number(match[1]), hash: match[2]! };
    }),
    ...(values.log ?? []).flatMap(headsFromLog),
  ];
  const verifier = new ChainVerifier();
  for (let after = 0; ;) {
    const batch = await readChain(db, after, BATCH);
    verifier.check(batch);
    if (verifier.broken) throw new CommandError(`Audit trail broken: ${describeBreak(verifier.broken)}`);
    if (batch.length < BATCH) break;
    after = batch.at(-1)!.seq;
  }
  const lastSeq = verifier.head?.seq ?? 0;
  for (const head of [...logged].sort((a, b) => a.seq - b.seq)) {
    const check = checkLoggedHead(head, await chainRowAt(db, head.seq), lastSeq);
    if (!check.ok) throw new CommandError(`Audit trail broken: ${describeHead(check)}`);
  }
  const against = logged.length
    ? `; it holds the ${logged.length} head${logged.length === 1 ? "" : "s"} the log saw`
    : "";
  return verifier.head
    ? `Audit trail intact: ${verifier.rows} rows, #1 to #${verifier.head.seq}, head ${verifier.head.hash}${against}.`
    : `Audit trail intact: no rows yet${against}.`;
}

async function run(command: string, args: string[], { db }: CliContext): Promise<string> {
  if (command === "list") return list(await db(), args);
  if (command === "verify") return verify(await db(), args);
  throw new UsageError(`Unknown command "${command}".`);
}

await runCli(USAGE, run);
