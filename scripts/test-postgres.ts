import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { aptInstall } from "./debian-packages";

export interface TestPostgres {
  url: string;
  /** Stops the server and removes its files. */
  stop(): void;
  /** An outage: the server stops at once (as on a crash), its data kept, until `resume`. */
  pause(): void;
  resume(): void;
}

/** One statement on the server at `url`, on a connection of its own: its rows. */
export async function queryOnce<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A new, empty database called `name` on the server `adminUrl` reaches (one an earlier run left goes first): its URL. */
export async function createEmptyDatabase(adminUrl: string, name: string): Promise<string> {
  await queryOnce(adminUrl, `drop database if exists ${name} with (force)`);
  await queryOnce(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}

const isRoot = process.getuid?.() === 0;

/**
 * Runs a psql script (deploy/postgres/roles.sql, say) with `variables`, as the administrator `adminUrl` names, as an
 * operator would. Throws with psql's own message when it fails.
 */
export function runPsqlFile(adminUrl: string, file: string, variables: Record<string, string>): void {
  const bin = postgresBin();
  if (!bin) throw new Error("psql is not installed");
  const args = ["--no-psqlrc", "-q", "-d", adminUrl, "-f", file];
  for (const [name, value] of Object.entries(variables)) args.push("-v", `${name}=${value}`);
  const result = spawnSync(join(bin, "psql"), args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`psql ${file} failed: ${result.stderr || result.stdout}`);
}

function postgresBin(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const version = readdirSync(base).sort((a, b) => Number(b) - Number(a))[0];
  return version ? join(base, version, "bin") : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, run its tools as the `postgres` user. */
function runAsOwner(command: string, args: string[]): boolean {
  const [program, programArgs] = isRoot
    ? ["runuser", ["-u", "postgres", "--", command, ...args]]
    : [command, args];
  const result = spawnSync(program, programArgs, { encoding: "utf8" });
  if (result.status !== 0) process.stderr.write(`${result.stdout}${result.stderr}`);
  return result.status === 0;
}

/**
 * A throwaway PostgreSQL server on 127.0.0.1 for the integration tests, installed with apt-get when missing
 * (as root). Returns undefined, and says why, where that cannot be done.
 */
export async function startTestPostgres(): Promise<TestPostgres | undefined> {
  let bin = postgresBin();
  if (!bin && aptInstall(["postgresql"])) bin = postgresBin();
  if (!bin) {
    console.log(
      "PostgreSQL is not installed (and cannot be installed here): its half of the tests is skipped.",
    );
    return undefined;
  }
  const dataDir = mkdtempSync(join(tmpdir(), "partner-sales-pg-"));
  chmodSync(dataDir, 0o777);
  const cluster = join(dataDir, "cluster");
  const port = await freePort();
  const startServer = () =>
    runAsOwner(join(bin, "pg_ctl"), [
      "-D",
      cluster,
      "-o",
      `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "-l",
      join(dataDir, "server.log"),
      "-w",
      "start",
    ]);
  const stopServer = () => runAsOwner(join(bin, "pg_ctl"), ["-D", cluster, "-m", "immediate", "-w", "stop"]);
  const ok =
    runAsOwner(join(bin, "initdb"), ["-D", cluster, "--auth=trust", "--username=postgres", "-E", "UTF8"]) &&
    startServer() &&
    runAsOwner(join(bin, "createdb"), [
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
      "-U",
      "postgres",
      "partner_sales_test",
    ]);
  const stop = () => {
    stopServer();
    rmSync(dataDir, { recursive: true, force: true });
  };
  if (!ok) {
    stop();
    throw new Error("Could not start the test PostgreSQL server.");
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/partner_sales_test`,
    stop,
    pause: () => void stopServer(),
    resume: () => void startServer(),
  };
}
