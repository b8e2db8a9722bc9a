import { randomUUID } from "node:crypto";
import { userInfo } from "node:os";
import { hashPassword } from "../lib/auth/password";
import { pgliteConnection, postgresConnection, type Connection } from "./lib/ledger-connections";
import { customer, seededRandom } from "./lib/ledger-customers";
import type { ImportFigures } from "./lib/ledger-import";
import {
  literal,
  plannedSales,
  PREPARE_STATEMENTS,
  saleTransactions,
  type OutcomeTemplate,
} from "./lib/ledger-writes";

// bench/history.ts's import, in a process of its own (run with --conditions=react-server, so the app's server-only
// modules load): the real sales already in the ledger (made through the running app, now stopped) are multiplied
// to BENCH_HISTORY_SALES over 18 months and 200 agents, each written as the app writes a sale. PGlite's DATA_DIR is
// opened with the app's own connection module; PostgreSQL (DATABASE_URL) through several connections at once. It
// prints one JSON line: how long it took, and what the bench looks for.
const SALES = Number(process.env.BENCH_HISTORY_SALES ?? 1_000_000);
const AGENTS = 200;
const DAYS = 548;
/** Sales per round trip: their transactions travel together, each still committed on its own. */
const SALES_PER_ROUND_TRIP = 50;
const POSTGRES_CONNECTIONS = Number(process.env.BENCH_HISTORY_CONNECTIONS ?? 4);
const log = (message: string) => console.error(`  [import] ${message}`);

interface TemplateRow {
  submission_id: string;
  protocol: string;
  status: string;
  request: Record<string, string>;
  upstream_status: number | null;
  upstream_message: string | null;
  outcome_detail: string | null;
  rejected_fields: string[] | null;
}

async function readRealSales(connection: Connection): Promise<TemplateRow[]> {
  const rows = await connection.rows<TemplateRow>(`
    select submission_id, protocol, status, request, upstream_status, upstream_message, outcome_detail, rejected_fields
    from sales order by created_at`);
  if (rows.length === 0 || rows.some((row) => row.status === "pending")) {
    throw new Error("The ledger should hold the real sales, every one with its outcome.");
  }
  return rows;
}

/** The agents as the operator's CLI adds them (`npm run agents -- add`): the account, then its audit event. */
async function addAgents(connection: Connection): Promise<string[]> {
  // The CLI hashes each password; one hash for all saves 200 argon2 runs and changes nothing the pages read.
  const passwordHash = await hashPassword(randomUUID());
  const random = seededRandom(AGENTS);
  const operator = `cli:${userInfo().username}`;
  const ids: string[] = [];
  const statements: string[] = [];
  for (let number = 1; number <= AGENTS; number++) {
    const id = randomUUID();
    const email = `agente${number}@central.example`;
    ids.push(id);
    statements.push(
      `INSERT INTO agents (id, email, name, role, password_hash) VALUES (${literal(id)}, ${literal(email)}, ` +
        `${literal(customer(number, random).customerName)}, 'agent', ${literal(passwordHash)}) ` +
        "ON CONFLICT (email) DO NOTHING;",
      `EXECUTE bench_audit('agent.created', ${literal(operator)}, NULL, 'cli', NULL, ` +
        `${literal({ agentId: id, email, role: "agent", password: true })});`,
    );
  }
  // Autocommit: each statement its own transaction, as the CLI's.
  for (const statement of statements) await connection.run(statement);
  return ids;
}

const emptyColumns = async (connection: Connection, submissionId: string) => {
  const [row] = await connection.rows<{ columns: string[] }>(`
    select array(select key from jsonb_each(to_jsonb(sale)) where value = 'null'::jsonb order by key) as columns
    from sales sale where submission_id = ${literal(submissionId)}`);
  return row!.columns.join(", ");
};

/**
 * A generated sale fills the columns a real sale of the same outcome has: should the app come to set one more (a
 * derived column, say) as it writes a sale, the statements of bench/lib/ledger-writes.ts must follow.
 */
async function checkWrittenAsTheApp(
  connection: Connection,
  realSales: TemplateRow[],
  generated: Record<string, string>,
) {
  for (const [status, submissionId] of Object.entries(generated)) {
    const real = realSales.find((sale) => sale.status === status)!;
    const [expected, written] = [
      await emptyColumns(connection, real.submission_id),
      await emptyColumns(connection, submissionId),
    ];
    if (expected !== written) {
      throw new Error(`A generated ${status} sale leaves empty [${written}]; a real one [${expected}].`);
    }
  }
}

const outcomeOf = (row: TemplateRow): OutcomeTemplate => ({
  status: row.status,
  request: row.request,
  upstreamStatus: row.upstream_status,
  upstreamMessage: row.upstream_message,
  outcomeDetail: row.outcome_detail,
  rejectedFields: row.rejected_fields,
});

/**
 * The sales, oldest first, a round trip of SALES_PER_ROUND_TRIP sales at a time on each connection, each round
 * trip checked for the rows it had to change. Also returns a sale a year back (for the deep page) and one
 * unsettled sale per outcome (for checkWrittenAsTheApp).
 */
async function writeLedger(
  connections: Connection[],
  {
    count,
    templates,
    agentIds,
    supervisorId,
    takenProtocols,
  }: {
    count: number;
    templates: OutcomeTemplate[];
    agentIds: string[];
    supervisorId: string;
    takenProtocols: string[];
  },
) {
  const deepIndex = Math.floor(count / 3);
  let deepSubmissionId = "";
  let transactions = 0;
  const sampleOf: Record<string, string> = {};
  const sales = plannedSales({ count, templates, agentIds, takenProtocols, end: new Date(), days: DAYS });
  function* roundTrips() {
    let batch: string[] = [];
    let rows = 0;
    for (const sale of sales) {
      if (sale.index === deepIndex) deepSubmissionId = sale.submissionId;
      if (!sale.settlement) sampleOf[sale.outcome.status] ??= sale.submissionId;
      const writes = saleTransactions(sale, supervisorId);
      batch.push(writes.sql);
      rows += writes.rows;
      transactions += writes.transactions;
      if (batch.length === SALES_PER_ROUND_TRIP || sale.index === count - 1) {
        yield { sql: batch.join("\n"), rows, last: sale.index };
        batch = [];
        rows = 0;
      }
    }
  }
  const started = performance.now();
  const trips = roundTrips();
  let reported = 0;
  // The connections take the next round trip as each is free: one generator, so every sale is written once.
  await Promise.all(
    connections.map(async (connection) => {
      for (let trip = trips.next(); !trip.done; trip = trips.next()) {
        const changed = await connection.run(trip.value.sql);
        if (changed !== trip.value.rows) {
          throw new Error(`A round trip changed ${changed} rows instead of ${trip.value.rows}.`);
        }
        if (trip.value.last + 1 >= reported + count / 10) {
          reported = trip.value.last + 1;
          const seconds = (performance.now() - started) / 1000;
          log(
            `${reported} sales written (${Math.round(reported / seconds)} sales/s, ${seconds.toFixed(0)} s)`,
          );
        }
      }
    }),
  );
  return { writeSeconds: (performance.now() - started) / 1000, transactions, deepSubmissionId, sampleOf };
}

async function main() {
  const started = performance.now();
  const url = process.env.DATABASE_URL;
  const first = url ? await postgresConnection(url) : await pgliteConnection(process.env.DATA_DIR!);
  const connections = [first];
  try {
    for (let more = 1; url && more < POSTGRES_CONNECTIONS; more++)
      connections.push(await postgresConnection(url));
    for (const connection of connections) await connection.run(PREPARE_STATEMENTS);
    const realSales = await readRealSales(first);
    const [supervisor] = await first.rows<{ id: string }>(
      "select id from agents where email = 'supervisor@demo.local'",
    );
    const agentIds = await addAgents(first);
    const count = SALES - realSales.length;
    const written = await writeLedger(connections, {
      count,
      templates: realSales.map(outcomeOf),
      agentIds,
      supervisorId: supervisor!.id,
      takenProtocols: realSales.map((row) => row.protocol),
    });
    await checkWrittenAsTheApp(first, realSales, written.sampleOf);
    const statuses = await first.rows<{ status: string; sales: number }>(
      "select status, sum(sales)::int as sales from sale_day_counts group by status order by status",
    );
    const { writeSeconds, transactions, deepSubmissionId } = written;
    const figures: ImportFigures = {
      seconds: (performance.now() - started) / 1000,
      writeSeconds,
      sales: count,
      transactions,
      salesPerSecond: count / writeSeconds,
      transactionsPerSecond: transactions / writeSeconds,
      connections: connections.length,
      statuses: Object.fromEntries(statuses.map((row) => [row.status, row.sales])),
      agentId: agentIds[0]!,
      deepSubmissionId,
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    for (const connection of connections) await connection.close();
  }
}

await main();
