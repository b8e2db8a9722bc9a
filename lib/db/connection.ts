import "server-only";
import { existsSync, mkdirSync, rmSync } from "node:fs";
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
import { acquireDataDirLock } from "./data-dir-lock";
import * as schema from "./schema";

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgresql" | "pglite-socket";
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /**
   * "server" opens the embedded database and shares it with other local processes through a Unix socket in
   * DATA_DIR; "tool" (the agents CLI) uses that socket when a server holds the directory.
   */
  role: "server" | "tool";
}

export class DataDirBusyError extends Error {
  override readonly name = "DataDirBusyError";
}

const MIGRATIONS = join(process.cwd(), "lib/db/migrations");
const SOCKET_PORT = 5432;
// Unix socket paths are limited to about 107 bytes.
const socketPath = (dataDir: string) => join(dataDir, `.s.PGSQL.${SOCKET_PORT}`);

async function openPostgres(url: string): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle connection dropped by the server (restart, failover) must not take the process down.
  pool.on("error", (error) => log.error("db.pool_error", { error }));
  const db = drizzlePostgres(pool, { schema });
  await migratePostgres(db, { migrationsFolder: MIGRATIONS });
  return { db, kind: "postgresql", close: () => pool.end() };
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

async function openPglite(dataDir: string, role: DatabaseOptions["role"]): Promise<DatabaseHandle> {
  // Customer data lives here: the directory is the owner's alone.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = acquireDataDirLock(dataDir);
  if (!lock.acquired) {
    if (role === "tool") return openThroughSocket(dataDir, lock.holderPid);
    throw new DataDirBusyError(
      `DATA_DIR ${dataDir} is in use by another process (pid ${lock.holderPid}). ` +
        "Stop it, give this instance its own DATA_DIR, or share a PostgreSQL database with DATABASE_URL.",
    );
  }
  try {
    const client = await PGlite.create(join(dataDir, "pglite"));
    const db = drizzlePglite(client, { schema });
    await migratePglite(db, { migrationsFolder: MIGRATIONS });
    let socket: PGLiteSocketServer | undefined;
    if (role === "server" && socketPath(dataDir).length < 100) {
      // We hold the lock, so a socket file here was left by a server that did not shut down cleanly.
      rmSync(socketPath(dataDir), { force: true });
      socket = new PGLiteSocketServer({ db: client, path: socketPath(dataDir), maxConnections: 4 });
      await socket.start();
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
export function openDatabase({ databaseUrl, dataDir, role }: DatabaseOptions): Promise<DatabaseHandle> {
  return databaseUrl ? openPostgres(databaseUrl) : openPglite(dataDir, role);
}
