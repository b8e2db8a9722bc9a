import "server-only";
import {
  parse,
  protocol,
  type PGlite,
  type QueryOptions,
  type Results,
  type Transaction,
} from "@electric-sql/pglite";

type BackendMessage = Awaited<ReturnType<PGlite["execProtocolStream"]>>[number];

interface Statement {
  name: string;
  /** The parameters' types, as the server inferred them: each value is serialized for its own. */
  paramTypes: number[];
  /** The statement's RowDescription (none for a command that returns no rows). */
  rowDescription: BackendMessage | undefined;
}

/** Statements kept per database: the app has a few dozen query shapes; an IN list of each length is one more. */
const MAX_STATEMENTS = 256;

/**
 * SQLSTATEs that mean a kept statement can no longer run as prepared, and is prepared again: 26000 (the statement
 * is gone: someone on the socket ran DISCARD ALL or DEALLOCATE ALL) and 0A000 ("cached plan must not change result
 * type": a table it reads changed shape).
 */
const STALE = new Set(["26000", "0A000"]);

const concat = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

const sqlState = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;

/**
 * Keeps each statement the app sends to the embedded database prepared, by name, for the life of the handle: a
 * statement is parsed, analysed and described once, and every later execution is one call into PGlite (Bind,
 * Execute, Sync) instead of six (PGlite's own `query()` sends Parse, Describe, Bind, Describe, Execute and Sync
 * one by one, parsing and planning the statement again each time). PostgreSQL then plans it once, generically,
 * once five runs have shown the generic plan costs no more.
 *
 * Wraps `query()` of the client and of its transactions, under PGlite's own locks, so Drizzle and every other
 * caller go on calling `query()` as before. Statements with parameters only: those are the app's shapes. Names are this process's own ("partner_sales_…"); the socket's clients
 * (the agents CLI) use unnamed statements, which PostgreSQL keeps apart. `exec()` (the simple protocol: several
 * statements, migrations) is untouched. Install it after migrating: a statement kept across a migration would only
 * be prepared again (see STALE), but there is no reason to.
 */
export function keepPlans(client: PGlite): void {
  const statements = new Map<string, Statement>();
  let counter = 0;

  const send = (message: Uint8Array, throwOnError = true) =>
    client.execProtocolStream(message, { syncToFs: false, throwOnError });

  /** Closes a statement on the server; one already gone (DEALLOCATE ALL) is no error. */
  async function forget(text: string): Promise<void> {
    const statement = statements.get(text);
    if (!statement) return;
    statements.delete(text);
    await send(
      concat([protocol.serialize.close({ type: "S", name: statement.name }), protocol.serialize.sync()]),
      false,
    );
  }

  async function prepare(text: string, options: QueryOptions | undefined): Promise<Statement> {
    const name = `partner_sales_${++counter}`;
    const messages = await send(
      concat([
        protocol.serialize.parse({ name, text, types: options?.paramTypes }),
        protocol.serialize.describe({ type: "S", name }),
        protocol.serialize.sync(),
      ]),
    );
    const statement: Statement = {
      name,
      paramTypes: parse.parseDescribeStatementResults(messages),
      rowDescription: messages.find((message) => message.name === "rowDescription"),
    };
    if (statements.size >= MAX_STATEMENTS) {
      const [oldest] = statements.keys();
      await forget(oldest!);
    }
    statements.set(text, statement);
    return statement;
  }

  async function execute(statement: Statement, params: unknown[], options: QueryOptions | undefined) {
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null;
      const type = statement.paramTypes[i]!;
      const serialize = options?.serializers?.[type] ?? client.serializers[type];
      return serialize ? serialize(param) : String(param);
    });
    const messages = await send(
      concat([
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
    );
    return statement.rowDescription ? [statement.rowDescription, ...messages] : messages;
  }

  /** One query, under the query lock: prepared the first time its text is seen, executed by name after that. */
  async function run<T>(
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
  ): Promise<Results<T>> {
    return client._runExclusiveQuery(async () => {
      let messages: BackendMessage[];
      try {
        const known = statements.get(text);
        if (known) {
          // The most recently used last: the bound closes the statement unused for longest.
          statements.delete(text);
          statements.set(text, known);
        }
        try {
          messages = await execute(known ?? (await prepare(text, options)), params, options);
        } catch (error) {
          // Outside a transaction nothing was done: prepare it again and run it once more. Inside one, the
          // transaction is aborted whatever happens next, so the error is the caller's.
          if (!known || !STALE.has(sqlState(error) ?? "")) throw error;
          await forget(text);
          if (client.isInTransaction()) throw error;
          messages = await execute(await prepare(text, options), params, options);
        }
      } catch (error) {
        // As PGlite's own query() reports it (makePGliteError).
        if (error instanceof Error && "code" in error)
          Object.assign(error, { query: text, params, queryOptions: options });
        throw error;
      }
      if (!client.isInTransaction()) await client.syncToFs();
      return parse.parseResults(messages, client.parsers, options)[0] as Results<T>;
    });
  }

  // A statement without parameters is most often run once (DDL, COPY into a blob, upkeep): PGlite's own path.
  const runOnce = (params: unknown[] | undefined, options: QueryOptions | undefined) =>
    !params?.length || options?.blob !== undefined;
  const { query, transaction } = client;

  client.query = (async <T>(text: string, params?: unknown[], options?: QueryOptions) => {
    if (runOnce(params, options)) return query.call(client, text, params, options);
    await client._checkReady();
    return client._runExclusiveTransaction(() => run<T>(text, params ?? [], options));
  }) as PGlite["query"];

  client.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    transaction.call(client, (tx) => {
      const txQuery = tx.query;
      tx.query = (async <R>(text: string, params?: unknown[], options?: QueryOptions) => {
        if (runOnce(params, options)) return txQuery.call(tx, text, params, options);
        if (tx.closed) throw new Error("Transaction is closed");
        return run<R>(text, params ?? [], options);
      }) as Transaction["query"];
      return callback(tx);
    })) as PGlite["transaction"];
}
