import "server-only";
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import type { Database } from "./connection";

const dialect = new PgDialect();

/** Where a COPY's parameters wait for it: a setting of its transaction, the values as a JSON array. */
const PARAMETERS = "partner_sales.copy_parameters";

/** The parameters as that JSON: text and numbers, what the statements read by COPY give drizzle. */
function parametersJson(params: unknown[]): string {
  for (const value of params) {
    if (typeof value === "number" ? !Number.isFinite(value) : typeof value !== "string")
      throw new TypeError(`A COPY parameter must be text or a number, not ${typeof value}.`);
  }
  return JSON.stringify(params);
}

/**
 * `text`, drizzle's SQL with `$n` placeholders (its fixed text holds no other `$`), with each `$n` read from the
 * transaction's PARAMETERS instead, as `types[n - 1]`, the type PostgreSQL gives `$n` there. Each is a scalar
 * subquery, so the database reads it once a statement (an InitPlan), not once a row.
 */
export function readingParameters(text: string, types: readonly string[]): string {
  let used = 0;
  const statement = text.replace(/\$(\d+)/g, (_, position: string) => {
    used++;
    const index = Number(position) - 1;
    return `(select (current_setting('${PARAMETERS}')::jsonb ->> ${index})::${types[index]})`;
  });
  if (used !== types.length) throw new Error("A COPY statement's text holds a `$` that is not a parameter.");
  return statement;
}

/**
 * The types PostgreSQL infers for the parameters of `text`, as it would for a prepared statement (a parameter is a
 * uuid beside a uuid column, a status beside the status enum): prepared under a name of its own and given back in
 * the same round trip. PREPARE fails alone or not at all, so nothing is left behind.
 */
const typesProbe = (text: string) => {
  const name = `partner_sales_copy_${randomUUID().replaceAll("-", "")}`;
  return `prepare ${name} as ${text};
    select parameter_types::text[] as types from pg_prepared_statements where name = '${name}';
    deallocate ${name}`;
};
const typesOf = (results: { rows: unknown[] }[]) => (results[1]!.rows[0] as { types: string[] }).types;

// A statement's parameter types follow from its text and the schema alone: each shape (an export's filter, its
// batches after the first) is probed once per process, not once a batch. Bounded: the shapes are few.
const MAX_KNOWN_SHAPES = 500;
const knownTypes = new Map<string, string[]>();

async function parameterTypes(
  text: string,
  count: number,
  probe: () => Promise<string[]>,
): Promise<string[]> {
  if (count === 0) return [];
  let types = knownTypes.get(text);
  if (!types) {
    types = await probe();
    if (knownTypes.size >= MAX_KNOWN_SHAPES) knownTypes.delete(knownTypes.keys().next().value!);
    knownTypes.set(text, types);
  }
  return types;
}

const SET_PARAMETERS = `select set_config('${PARAMETERS}', $1, true)`;

const CSV = "(format csv, delimiter ';')";

// Set for the COPY's transaction only. A timestamp cast to text reads `DD/MM/YYYY HH24:MI:SS[.ffffff]`, the order
// Brazilian spreadsheets read, at a fraction of to_char's cost (DateStyle "SQL, DMY"). No JIT: a batch's row count
// is estimated from its keyset bounds at ten times what it is, and PostgreSQL spent as long compiling the batch's
// expressions (~70 ms) as running them; PGlite has no JIT and takes the setting as it is.
const SETTINGS = "set local datestyle = 'SQL, DMY'; set local jit = off";

/**
 * The rows of `query` as CSV written by the database itself (COPY: `;` between cells, LF after each row, a cell
 * quoted when it holds `;`, `"` or a line break, NULL as an empty cell), and how many rows it holds. A timestamp
 * cast to text in `query` reads day first (`SETTINGS`). PGlite copies into a blob; PostgreSQL streams COPY TO
 * STDOUT on one connection of the pool. For a bounded batch: the whole text is in memory.
 *
 * COPY takes no parameters, and its text is what the server keeps of it (pg_stat_statements, pg_stat_activity):
 * written into it, a searched CPF would stay there after its customer's data is erased. So the values come as a
 * parameterised statement's (`set_config`, for this transaction only), which those keep without its values, and
 * the COPY's text reads them from there (`readingParameters`): it holds the query's shape, never a value.
 */
export async function copyCsv(db: Database, query: SQL): Promise<{ csv: Uint8Array; rows: number }> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  const values = [parametersJson(params)];
  const copy = (types: string[]) => `copy (${readingParameters(text, types)})`;
  const client = (db as unknown as { $client: unknown }).$client;
  if (client instanceof PGlite) {
    return client.transaction(async (transaction) => {
      await transaction.exec(SETTINGS);
      await transaction.query(SET_PARAMETERS, values);
      const types = await parameterTypes(text, params.length, async () =>
        typesOf(await transaction.exec(typesProbe(text))),
      );
      const result = await transaction.query(`${copy(types)} to '/dev/blob' with ${CSV}`);
      const csv = result.blob ? new Uint8Array(await result.blob.arrayBuffer()) : new Uint8Array();
      return { csv, rows: result.affectedRows ?? 0 };
    });
  }
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    const connection = client instanceof pg.Pool ? await client.connect() : client;
    let failed: Error | undefined;
    try {
      await connection.query(`begin; ${SETTINGS}`);
      await connection.query(SET_PARAMETERS, values);
      const types = await parameterTypes(text, params.length, async () =>
        typesOf((await connection.query(typesProbe(text))) as unknown as pg.QueryResult[]),
      );
      const stream = connection.query(copyTo(`${copy(types)} to stdout with ${CSV}`));
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      await connection.query("commit");
      return { csv: Buffer.concat(chunks), rows: stream.rowCount };
    } catch (error) {
      failed = error as Error;
      throw error;
    } finally {
      // A connection whose COPY failed halfway (its transaction open or aborted) is not handed to the next query.
      if (connection !== client) (connection as pg.PoolClient).release(failed);
      else if (failed) await connection.query("rollback").catch(() => undefined);
    }
  }
  throw new Error("copyCsv: the database's client is neither PGlite nor node-postgres.");
}
