import "server-only";
import { PGlite } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import type { Database } from "./connection";

const dialect = new PgDialect();

/**
 * A parameter as a literal PostgreSQL reads the same whatever its settings: dollar-quoted with a tag the value does
 * not hold (no escapes inside, so `standard_conforming_strings` and backslashes do not matter).
 */
function literal(value: unknown): string {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string")
    throw new TypeError(`A COPY parameter must be text or a number, not ${typeof value}.`);
  // The literal ends at the tag's first appearance after the opening one: it must be the closing tag itself.
  let tag = "$v$";
  for (let n = 0; `${value}${tag}`.indexOf(tag) < value.length; n++) tag = `$v${n}$`;
  return `${tag}${value}${tag}`;
}

/**
 * `query` as SQL text with its parameters written in as literals: COPY takes no parameters. The placeholders are
 * drizzle's own `$n` (the statement's fixed text holds no other `$`), each replaced once, in one pass.
 */
export function inlined(query: SQL): string {
  const { sql, params } = dialect.sqlToQuery(query);
  let used = 0;
  const text = sql.replace(/\$(\d+)/g, (_, position: string) => {
    used++;
    return literal(params[Number(position) - 1]);
  });
  if (used !== params.length) throw new Error("A COPY statement's text holds a `$` that is not a parameter.");
  return text;
}

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
 */
export async function copyCsv(db: Database, query: SQL): Promise<{ csv: Uint8Array; rows: number }> {
  const copy = `copy (${inlined(query)})`;
  const client = (db as unknown as { $client: unknown }).$client;
  if (client instanceof PGlite) {
    return client.transaction(async (transaction) => {
      await transaction.exec(SETTINGS);
      const result = await transaction.query(`${copy} to '/dev/blob' with ${CSV}`);
      const csv = result.blob ? new Uint8Array(await result.blob.arrayBuffer()) : new Uint8Array();
      return { csv, rows: result.affectedRows ?? 0 };
    });
  }
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    const connection = client instanceof pg.Pool ? await client.connect() : client;
    let failed: Error | undefined;
    try {
      await connection.query(`begin; ${SETTINGS}`);
      const stream = connection.query(copyTo(`${copy} to stdout with ${CSV}`));
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
