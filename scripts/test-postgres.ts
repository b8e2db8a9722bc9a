import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
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

export interface TestPostgresTls {
  /** The server's certificate and key (PEM), copied into the cluster for the server's user, who must own the key. */
  certificateFile: string;
  keyFile: string;
  /** Lines put first in pg_hba.conf (the first that matches decides): deploy/postgres/pg_hba.conf's, say. */
  hbaRules: string;
}

/** `tls`'s files and rules in a cluster initdb just made, before the server starts (with ssl=on). */
function configureTls(cluster: string, tls: TestPostgresTls): void {
  const owner = statSync(cluster);
  for (const [from, to] of [
    [tls.certificateFile, "server.crt"],
    [tls.keyFile, "server.key"],
  ] as const) {
    copyFileSync(from, join(cluster, to));
    chownSync(join(cluster, to), owner.uid, owner.gid);
    chmodSync(join(cluster, to), 0o600);
  }
  const hba = join(cluster, "pg_hba.conf");
  writeFileSync(hba, `${tls.hbaRules.trim()}\n\n${readFileSync(hba, "utf8")}`);
}

/**
 * A throwaway PostgreSQL server on 127.0.0.1 for the integration tests, installed with apt-get when missing
 * (as root). Returns undefined, and says why, where that cannot be done. With `tls`, it also takes TLS
 * connections, and pg_hba.conf starts with its rules; the URL returned is the superuser's, over plain TCP as
 * initdb's rules let it.
 */
export async function startTestPostgres({ tls }: { tls?: TestPostgresTls } = {}): Promise<
  TestPostgres | undefined
> {
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
  const tlsSettings = tls ? " -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key" : "";
  // Loaded where Debian's package ships it, so tests can hold what the server keeps of each statement
  // (pg_stat_statements) against a customer's data, as a production server with the extension would keep it.
  const statements = existsSync(join(bin, "../lib/pg_stat_statements.so"))
    ? " -c shared_preload_libraries=pg_stat_statements"
    : "";
  const startServer = () =>
    runAsOwner(join(bin, "pg_ctl"), [
      "-D",
      cluster,
      "-o",
      `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off${tlsSettings}${statements}`,
      "-l",
      join(dataDir, "server.log"),
      "-w",
      "start",
    ]);
  const stopServer = () => runAsOwner(join(bin, "pg_ctl"), ["-D", cluster, "-m", "immediate", "-w", "stop"]);
  const initialised = runAsOwner(join(bin, "initdb"), [
    "-D",
    cluster,
    "--auth=trust",
    "--username=postgres",
    "-E",
    "UTF8",
  ]);
  if (initialised && tls) configureTls(cluster, tls);
  const ok =
    initialised &&
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
