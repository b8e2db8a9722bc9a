import "server-only";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/node-postgres";
import { migrate as migratePostgres } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import pg from "pg";
import { log } from "@/lib/log";
import { databaseErrors, noteRoundTrips, type DatabaseErrorMessage } from "./channels";
import { acquireDataDirLock } from "./data-dir-lock";
import { grantAppRole, ownsAuditTrail } from "./grants";
import { clusterState } from "./pglite-control";
import { PGLITE_EXTENSIONS } from "./pglite-extensions";
import { keepPlans } from "./pglite-plans";
import * as schema from "./schema";

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgresql" | "pglite-socket";
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  /**
   * The schema owner's URL (DATABASE_MIGRATION_URL): migrations run as the owner, who then grants the role of
   * `databaseUrl` what the app needs (lib/db/grants.ts); the app works as that role. Unset: `databaseUrl` migrates.
   */
  migrationUrl?: string;
  dataDir: string;
  /**
   * "server" opens the embedded database and shares it with other local processes through a Unix socket in
   * DATA_DIR; "tool" (the agents CLI) uses that socket when a server holds the directory.
   */
  role: "server" | "tool";
  /**
   * Create a new embedded database in a short-lived child process (the app server does). PGlite's initdb takes
   * its WebAssembly heap to about 800 MB, memory a long-running process would otherwise hold on to.
   */
  initdbInChildProcess?: boolean;
  /** How long to wait for another process's migration (PostgreSQL); tests shorten it. */
  migrationLockWait?: MigrationLockWait;
}

export class DataDirBusyError extends Error {
  override readonly name = "DataDirBusyError";
}

const MIGRATIONS = join(process.cwd(), "lib/db/migrations");
const SOCKET_PORT = 5432;
// Unix socket paths are limited to about 107 bytes.
const socketPath = (dataDir: string) => join(dataDir, `.s.PGSQL.${SOCKET_PORT}`);

/**
 * The key of the session-level advisory lock every migration run takes (advisory locks are per database, so
 * another database on the same server never waits for it). Any fixed 64-bit number unlikely to be chosen by
 * another program sharing the database: these are the ASCII codes of "PSmigrat".
 */
export const MIGRATION_LOCK_KEY = 0x50_53_6d_69_67_72_61_74n;

export interface MigrationLockWait {
  /** How long each wait lasts before the log says it is still waiting. */
  stepMs: number;
  /** How many steps before giving up: start-up then fails, naming the lock. */
  steps: number;
}

/** Half a minute at a time, ten minutes in all: a migration of this app takes seconds. */
const MIGRATION_LOCK_WAIT: MigrationLockWait = { stepMs: 30_000, steps: 20 };

/** Waits for the migration lock, saying so every step; a holder that never lets go fails the start-up. */
async function waitForLock(client: pg.PoolClient, key: string, { stepMs, steps }: MigrationLockWait) {
  await client.query(`set lock_timeout = ${Math.round(stepMs)}`);
  for (let step = 1; ; step++) {
    try {
      await client.query("select pg_advisory_lock($1)", [key]);
      break;
    } catch (error) {
      // 55P03: lock_not_available, the wait's step ran out.
      if (!(error instanceof pg.DatabaseError && error.code === "55P03")) throw error;
      if (step >= steps) {
        throw new Error(
          `Another process has held the migration lock for ${Math.round((stepMs * steps) / 1000)} s ` +
            `(advisory lock ${key} in pg_locks): stop it, or end its session, and start again.`,
        );
      }
      log.warn("db.migrations_still_waiting", { seconds: Math.round((stepMs * step) / 1000) });
    }
  }
  await client.query("set lock_timeout = 0");
}

/**
 * Migrations run once, however many instances (and CLI runs) start at the same moment: whoever takes the lock
 * migrates; the others wait for it, say so, and then find nothing left to do. Without it two `CREATE TYPE`s race
 * and one instance dies on a duplicate key in pg_type. A holder that dies mid-migration loses the lock with its
 * connection, and its transaction is rolled back, so the next in line starts over.
 */
async function migrateUnderLock(pool: pg.Pool, wait: MigrationLockWait = MIGRATION_LOCK_WAIT): Promise<void> {
  const client = await pool.connect();
  const key = MIGRATION_LOCK_KEY.toString();
  try {
    const { rows } = await client.query<{ locked: boolean }>("select pg_try_advisory_lock($1) as locked", [
      key,
    ]);
    if (!rows[0]?.locked) {
      log.info("db.migrations_waiting", { reason: "another process is migrating this database" });
      const started = performance.now();
      await waitForLock(client, key, wait);
      log.info("db.migrations_waited", { ms: Math.round(performance.now() - started) });
    }
    await migratePostgres(drizzlePostgres(client, { schema }), { migrationsFolder: MIGRATIONS });
    await client.query("select pg_advisory_unlock($1)", [key]);
    client.release();
  } catch (error) {
    // The connection is closed, not pooled: closing it releases the lock whatever state it was left in.
    client.release(error as Error);
    throw error;
  }
}

type Callback = (error: Error | null, ...rest: unknown[]) => void;

/** Publishes a failure for the metrics: the server's SQLSTATE when it answered one (a system error's code is not). */
const noteFailure = (error: unknown) => {
  if (!databaseErrors.hasSubscribers) return;
  const message: DatabaseErrorMessage = {
    sqlState: error instanceof pg.DatabaseError ? error.code : undefined,
  };
  databaseErrors.publish(message);
};

/** Calls `callback` when `error` is set, and passes everything on unchanged. */
const noting =
  (callback: Callback): Callback =>
  (error, ...rest) => {
    if (error) noteFailure(error);
    callback(error, ...rest);
  };

/**
 * The pool's connections, each query and each failed connect or query counted for the metrics (lib/metrics.ts) on
 * its way to the caller, whichever form it was called in: the pool calls back, drizzle awaits.
 */
class CountedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    for (const method of ["connect", "query"] as const) {
      const original = (this[method] as (...args: unknown[]) => unknown).bind(this);
      this[method] = ((...args: unknown[]) => {
        if (method === "query") noteRoundTrips(1);
        const last = args.at(-1);
        if (typeof last === "function") return original(...args.slice(0, -1), noting(last as Callback));
        const result = original(...args);
        if (result instanceof Promise) result.catch(noteFailure);
        return result;
      }) as never;
    }
  }
}

/**
 * Migrates as the schema's owner and grants the app's role what it needs, on a connection of its own, closed
 * before the app's pool serves anything: the instance keeps no owner's connection.
 */
async function migrateAsOwner(url: string, appRole: string, wait?: MigrationLockWait): Promise<void> {
  const owner = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000 });
  owner.on("error", (error) => log.error("db.pool_error", { error }));
  try {
    await migrateUnderLock(owner, wait);
    const client = await owner.connect();
    try {
      const { rows } = await client.query<{ user: string }>("select current_user as user");
      if (rows[0]?.user !== appRole) await grantAppRole(client, appRole);
    } finally {
      client.release();
    }
  } finally {
    await owner.end();
  }
}

const newestMigration = (): number => {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS, "meta/_journal.json"), "utf8")) as {
    entries: { when: number }[];
  };
  return Math.max(...journal.entries.map((entry) => entry.when));
};

/**
 * Whether every migration of this release has run (drizzle records each by its folder's time): then there is
 * nothing to migrate, and a role that may not migrate (the app's own, without DATABASE_MIGRATION_URL; the CLI's) can
 * go on. False when the journal cannot be read at all.
 */
async function schemaIsCurrent(pool: pg.Pool): Promise<boolean> {
  try {
    const { rows } = await pool.query<{ newest: string | null }>(
      "select max(created_at)::text as newest from drizzle.__drizzle_migrations",
    );
    return Number(rows[0]?.newest ?? 0) >= newestMigration();
  } catch {
    return false;
  }
}

let warnedOwner = false;

async function openPostgres(
  url: string,
  migrationUrl: string | undefined,
  role: DatabaseOptions["role"],
  migrationLockWait?: MigrationLockWait,
): Promise<DatabaseHandle> {
  // A database that does not answer (a dropped network, not a refusal) is an outage in 5 s, not a hang.
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    Client: CountedClient,
  });
  // An idle connection dropped by the server (restart, failover) must not take the process down.
  pool.on("error", (error) => {
    noteFailure(error);
    log.error("db.pool_error", { error });
  });
  try {
    if (migrationUrl) {
      const { rows } = await pool.query<{ user: string }>("select current_user as user");
      await migrateAsOwner(migrationUrl, rows[0]!.user, migrationLockWait);
    } else if (!(await schemaIsCurrent(pool))) {
      await migrateUnderLock(pool, migrationLockWait).catch((error: unknown) => {
        // 42501: insufficient_privilege. The app's own role may not migrate: that is the owner's.
        if (error instanceof pg.DatabaseError && error.code === "42501") {
          throw new Error(
            "The database needs this release's migrations, which DATABASE_URL's role may not run: set DATABASE_MIGRATION_URL to the schema owner's.",
          );
        }
        throw error;
      });
    }
    // The trigger is all that keeps the trail append-only against a role that owns it (it may drop the trigger):
    // the server says so once, the operator's tools not at all.
    if (role === "server" && !warnedOwner && (await ownsAuditTrail(pool))) {
      warnedOwner = true;
      log.warn("db.app_role_owns_audit_trail", {
        hint: "the app's database role owns the schema: give it its own role and set DATABASE_MIGRATION_URL to the owner's (docs/production.md)",
      });
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return { db: drizzlePostgres(pool, { schema }), kind: "postgresql", close: () => pool.end() };
}

async function openThroughSocket(dataDir: string, holderPid: number): Promise<DatabaseHandle> {
  const path = socketPath(dataDir);
  if (!existsSync(path)) {
    throw new DataDirBusyError(
      `Another process (pid ${holderPid}) is using the embedded database in ${dataDir}. ` +
        "Wait for it to finish, or stop it, and try again.",
    );
  }
  const client = new pg.Client({ host: dataDir, port: SOCKET_PORT, user: "postgres", database: "postgres" });
  try {
    await client.connect();
  } catch {
    throw new DataDirBusyError(
      `The app (pid ${holderPid}) holds the embedded database in ${dataDir} and did not answer on its socket. ` +
        "Stop the app (Ctrl-C) and run this command again.",
    );
  }
  return { db: drizzlePostgres(client, { schema }), kind: "pglite-socket", close: () => client.end() };
}

// The ledger of one call center is small: Postgres's default 128 MB of shared buffers, all of it touched at start
// inside PGlite's heap, would be most of the server's memory. 16 MB still holds every page this app reads often.
const PGLITE_SETTINGS = { postgresqlconf: ["shared_buffers=16MB"] };

/**
 * Opens the embedded database in `path` and closes it cleanly, in a short-lived child process: creating it
 * (initdb), or replaying the write-ahead log an unclean stop left. Both run inside one WebAssembly call that would
 * hold this process's event loop (no readiness answer, no progress line) and take its heap to hundreds of MB.
 */
function openAndCloseInChildProcess(path: string, purpose: "create" | "recover"): Promise<void> {
  const script =
    'const { PGlite } = await import("@electric-sql/pglite");' +
    "const db = await PGlite.create(process.argv[1], JSON.parse(process.argv[2]));" +
    "await db.close();";
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", script, path, JSON.stringify(PGLITE_SETTINGS)],
      { cwd: process.cwd(), stdio: ["ignore", "ignore", "pipe"] },
    );
    // This process stopped first (a stop during a long recovery): the child must not go on writing DATA_DIR once
    // the lock is given up and another server may open it.
    const stopChild = () => child.kill("SIGKILL");
    process.once("exit", stopChild);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      process.off("exit", stopChild);
      if (code === 0) resolve();
      else {
        const last = stderr.trim().split("\n").at(-1) ?? "";
        const what = purpose === "create" ? "Creating" : "Recovering";
        reject(new Error(`${what} the embedded database failed (${signal ?? `exit ${code}`}): ${last}`));
      }
    });
  });
}

/**
 * Customer data lives in DATA_DIR, and its socket answers anyone who reaches it as the database's superuser, with no
 * password: the directory must be this user's alone. One that another user could write to (plant a socket, swap
 * the files) stops the start; one that others may only read or enter is closed to them, and the log says so.
 */
function checkDataDir(dataDir: string): void {
  const stat = statSync(dataDir);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new DataDirUnsafeError(
      `DATA_DIR ${dataDir} belongs to another user (uid ${stat.uid}): the app's user (uid ${uid}) must own it.`,
    );
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new DataDirUnsafeError(
      `DATA_DIR ${dataDir} can be written by other users (mode ${(stat.mode & 0o777).toString(8)}): ` +
        `run chmod 700 ${dataDir}, and check that nobody else changed what is in it.`,
    );
  }
  if ((stat.mode & 0o055) !== 0) {
    chmodSync(dataDir, stat.mode & 0o700);
    log.warn("db.data_dir_closed", { mode: (stat.mode & 0o777).toString(8), now: "700" });
  }
}

export class DataDirUnsafeError extends Error {
  override readonly name = "DataDirUnsafeError";
}

type Calls = Pick<PGlite, "query" | "exec">;

/** Counts each call into the embedded database for the metrics, a transaction's own included (BEGIN and COMMIT too). */
function countCalls(client: PGlite): void {
  const counted = <T extends Calls>(target: T): T => {
    const { query, exec } = target;
    target.query = ((...args: Parameters<Calls["query"]>) => {
      noteRoundTrips(1);
      return query.apply(target, args);
    }) as T["query"];
    target.exec = ((...args: Parameters<Calls["exec"]>) => {
      noteRoundTrips(1);
      return exec.apply(target, args);
    }) as T["exec"];
    return target;
  };
  counted(client);
  const { transaction } = client;
  client.transaction = ((callback: Parameters<PGlite["transaction"]>[0]) => {
    noteRoundTrips(2);
    return transaction.call(client, (tx) => callback(counted(tx)));
  }) as PGlite["transaction"];
}

async function openPglite(
  dataDir: string,
  role: DatabaseOptions["role"],
  { initdbInChildProcess = false } = {},
): Promise<DatabaseHandle> {
  // Customer data lives here: the directory is the owner's alone.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  checkDataDir(dataDir);
  const lock = acquireDataDirLock(dataDir);
  if (!lock.acquired) {
    if (role === "tool") return openThroughSocket(dataDir, lock.holderPid);
    throw new DataDirBusyError(
      `DATA_DIR ${dataDir} is in use by another process (pid ${lock.holderPid}). ` +
        "Stop it, give this instance its own DATA_DIR, or share a PostgreSQL database with DATABASE_URL.",
    );
  }
  try {
    const path = join(dataDir, "pglite");
    if (initdbInChildProcess) {
      const state = clusterState(path);
      if (state === null) await openAndCloseInChildProcess(path, "create");
      else if (state !== "shut down") {
        // The last process did not close it (a crash, SIGKILL): its write-ahead log is replayed first.
        log.warn("db.recovering", { state });
        const started = performance.now();
        await openAndCloseInChildProcess(path, "recover");
        log.info("db.recovered", { ms: Math.round(performance.now() - started) });
      }
    }
    // On the Node file system PGlite writes straight to the files and its sync step does nothing, so not waiting
    // for that step changes no guarantee and saves a queue hop on every query.
    const client = await PGlite.create(path, {
      ...PGLITE_SETTINGS,
      extensions: PGLITE_EXTENSIONS,
      relaxedDurability: true,
    });
    await client.exec("create extension if not exists pg_visibility");
    const db = drizzlePglite(client, { schema });
    await migratePglite(db, { migrationsFolder: MIGRATIONS });
    keepPlans(client);
    countCalls(client);
    let socket: PGLiteSocketServer | undefined;
    if (role === "server" && socketPath(dataDir).length < 100) {
      // We hold the lock, so a socket file here was left by a server that did not shut down cleanly.
      rmSync(socketPath(dataDir), { force: true });
      socket = new PGLiteSocketServer({ db: client, path: socketPath(dataDir), maxConnections: 4 });
      await socket.start();
      // Whoever can connect is the database's superuser: only this user may.
      chmodSync(socketPath(dataDir), 0o600);
    }
    return {
      db,
      kind: "pglite",
      async close() {
        await socket?.stop();
        await client.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** One connection module: PostgreSQL when DATABASE_URL is set, embedded PGlite in DATA_DIR otherwise. */
export function openDatabase({
  databaseUrl,
  migrationUrl,
  dataDir,
  role,
  initdbInChildProcess,
  migrationLockWait,
}: DatabaseOptions): Promise<DatabaseHandle> {
  return databaseUrl
    ? openPostgres(databaseUrl, migrationUrl, role, migrationLockWait)
    : openPglite(dataDir, role, { initdbInChildProcess });
}
