import { accessSync, constants } from "node:fs";
import { isIP } from "node:net";
import { text, type RawEnv } from "./env-values";

/**
 * Where node-postgres connects and how, read from a postgres:// URL the way it reads one (pg-connection-string): a
 * `host` parameter wins over the URL's host, the last of a repeated parameter counts, and no host at all is PGHOST's
 * or localhost.
 */
function postgresTarget(value: string, env: RawEnv) {
  let url: URL;
  let hasHost = true;
  try {
    url = new URL(value);
  } catch {
    // `user@/database?host=/socket`: no host at all, which WHATWG URLs refuse and node-postgres reads this way.
    url = new URL(value.replace("@/", "@___DUMMY___/"));
    hasHost = false;
  }
  const hostname = hasHost ? decodeURIComponent(url.hostname.replace(/^\[(.+)\]$/, "$1")) : "";
  const last = (name: string) => url.searchParams.getAll(name).at(-1);
  const host = last("host") || hostname || text(env, "PGHOST") || "localhost";
  return { host, sslmode: last("sslmode"), sslrootcert: last("sslrootcert") };
}

/** A Unix socket, or an address that never leaves this machine. */
function staysOnThisMachine(host: string): boolean {
  if (host.startsWith("/") || host === "localhost" || host === "::1") return true;
  return isIP(host) === 4 && host.startsWith("127.");
}

/**
 * Live mode: the database's traffic carries customers' CPFs and names and the agents' password hashes, so a URL
 * that leaves this machine must ask node-postgres for verified TLS. `verify-full` is the one sslmode it (and its
 * next major version) checks both the certificate's chain and its host name for, against `sslrootcert` when given,
 * Node's own CA list otherwise; `require` and `verify-ca` are heading to libpq's weaker meanings.
 * Returns what is wrong with `value`, for a ConfigError; undefined when nothing is.
 */
export function databaseTlsProblem(value: string, env: RawEnv): string | undefined {
  let target: ReturnType<typeof postgresTarget>;
  try {
    target = postgresTarget(value, env);
  } catch {
    return "is not a valid URL";
  }
  const { host, sslmode, sslrootcert } = target;
  if (sslmode !== "verify-full" && !staysOnThisMachine(host)) {
    return (
      "must ask for verified TLS (sslmode=verify-full, with sslrootcert=<CA file>): the connection carries CPFs, " +
      "names and password hashes. Only a loopback address or a Unix socket may go without " +
      `(got host "${host}", ${sslmode ? `sslmode=${sslmode}` : "no sslmode"})`
    );
  }
  if (sslrootcert) {
    try {
      accessSync(sslrootcert, constants.R_OK);
    } catch {
      return `sslrootcert names a file this process cannot read ("${sslrootcert}")`;
    }
  }
  return undefined;
}
