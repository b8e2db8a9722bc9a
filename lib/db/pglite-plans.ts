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

/** Statements kept per database: a guard; the app marks about ten (lib/db/prepared.ts). */
const MAX_STATEMENTS = 256;

// On globalThis, like the statements of lib/db/prepared.ts: Next bundles the instrumentation hook (which opens the
// database) and the routes (which mark statements) separately, each with its own copy of this module.
const state = globalThis as { __partnerSalesKeptStatements?: Set<string> };
const marked = (state.__partnerSalesKeptStatements ??= new Set());

/**
 * Marks a statement's SQL to be kept prepared on the embedded database. lib/db/prepared.ts marks the hot path's:
 * lookups and writes by key, whose generic plan is the custom one. Statements whose best plan depends on their
 * values (the history's searches, date ranges, skewed status filters) are not marked: PostgreSQL would be free to
 * settle on a generic plan for them after five runs.
 */
export function keepPlanOf(text: string): void {
  marked.add(text);
}

const sqlState = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;

/** The statement is gone: someone on the socket ran DEALLOCATE ALL or DISCARD ALL, which drops every one. */
const isGone = (error: unknown) => sqlState(error) === "26000";

/**
 * The statement can no longer run as prepared: a table it reads changed shape (0A000 with this message; the code
 * alone also means any unsupported feature), or an object or type it names changed (classes 42 and XX).
 */
const isStale = (error: unknown) => {
  const code = sqlState(error) ?? "";
  if (code === "0A000") return (error as Error).message.includes("cached plan must not change result type");
  return code.startsWith("42") || code.startsWith("XX");
};

/**
 * Keeps each marked statement (keepPlanOf) prepared on the embedded database, by name, for the life of the handle:
 * it is parsed, analysed and described once, and every later execution is one call into PGlite (Bind, Execute,
 * Sync) instead of six (PGlite's own `query()` sends Parse, Describe, Bind, Describe, Execute and Sync one by one,
 * parsing and planning the statement again each time). PostgreSQL then plans it once, generically, once five runs
 * have shown the generic plan costs no more.
 *
 * Wraps `query()` of the client and of its transactions, under PGlite's own locks, so Drizzle and every other
 * caller go on calling `query()` as before; any other statement takes PGlite's own path. Names are this process's
 * own ("partner_sales_<n>"); the socket's clients (the agents CLI) use unnamed statements. `exec()` is untouched.
 * Install it after migrating.
 *
 * A kept statement that fails as gone or stale (above) is forgotten and, outside a transaction, prepared again and
 * run once more. Inside one the transaction is already aborted, so that one error reaches the caller, once: after
 * DEALLOCATE ALL every statement is forgotten at the first failure.
 */
export function keepPlans(client: PGlite): void {
  const statements = new Map<string, Statement>();
  let counter = 0;

  const send = (message: Uint8Array, options?: QueryOptions, throwOnError = true) =>
    client.execProtocolStream(message, { syncToFs: false, throwOnError, onNotice: options?.onNotice });

  /** Closes a statement on the server; one already gone is no error. */
  async function forget(key: string): Promise<void> {
    const statement = statements.get(key);
    if (!statement) return;
    statements.delete(key);
    await send(
      Buffer.concat([
        protocol.serialize.close({ type: "S", name: statement.name }),
        protocol.serialize.sync(),
      ]),
      undefined,
      false,
    );
  }

  async function prepare(key: string, text: string, options: QueryOptions | undefined): Promise<Statement> {
    const name = `partner_sales_${++counter}`;
    const messages = await send(
      Buffer.concat([
        protocol.serialize.parse({ name, text, types: options?.paramTypes }),
        protocol.serialize.describe({ type: "S", name }),
        protocol.serialize.sync(),
      ]),
      options,
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
    statements.set(key, statement);
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
      Buffer.concat([
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
      options,
    );
    return statement.rowDescription ? [statement.rowDescription, ...messages] : messages;
  }

  /** One query, under the query lock: prepared the first time it is seen, executed by name after that. */
  async function run<T>(
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
  ): Promise<Results<T>> {
    const key = options?.paramTypes ? `${options.paramTypes.join(",")}\n${text}` : text;
    return client._runExclusiveQuery(async () => {
      let messages: BackendMessage[];
      try {
        const known = statements.get(key);
        if (known) {
          // The most recently used last: the bound closes the statement unused for longest.
          statements.delete(key);
          statements.set(key, known);
        }
        try {
          messages = await execute(known ?? (await prepare(key, text, options)), params, options);
        } catch (error) {
          if (!known) throw error;
          if (isGone(error)) statements.clear();
          else if (isStale(error)) await forget(key);
          else throw error;
          if (client.isInTransaction()) throw error;
          messages = await execute(await prepare(key, text, options), params, options);
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

  const ownPath = (text: string, options: QueryOptions | undefined) =>
    !marked.has(text) || options?.blob !== undefined;
  const { query, transaction } = client;

  client.query = (async <T>(text: string, params?: unknown[], options?: QueryOptions) => {
    if (ownPath(text, options)) return query.call(client, text, params, options);
    await client._checkReady();
    return client._runExclusiveTransaction(() => run<T>(text, params ?? [], options));
  }) as PGlite["query"];

  client.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    transaction.call(client, (tx) => {
      const txQuery = tx.query;
      tx.query = (async <R>(text: string, params?: unknown[], options?: QueryOptions) => {
        if (ownPath(text, options)) return txQuery.call(tx, text, params, options);
        if (tx.closed) throw new Error("Transaction is closed");
        return run<R>(text, params ?? [], options);
      }) as Transaction["query"];
      return callback(tx);
    })) as PGlite["transaction"];
}
