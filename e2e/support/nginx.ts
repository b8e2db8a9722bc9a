import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startProcess, type RunningProcess } from "../../bench/lib/processes";
import { TEST_PROGRAMS } from "../../scripts/debian-packages";
import type { IssuedCertificate } from "./certificates";

const SITE = join(import.meta.dirname, "../../deploy/nginx/partner-sales.conf");

export interface Nginx {
  /** https://localhost:<port>, what the browser and AUTH_URL use. */
  url: string;
  httpUrl: string;
  /** https://localhost:<port>/instances/127.0.0.1:<instance port>/metrics, one per instance: Prometheus's targets. */
  metricsUrls: string[];
  /** What nginx wrote to its access log (the site's own and the http block's) and its error log so far. */
  accessLog(): string;
  errorLog(): string;
  stop(): Promise<void>;
}

/** `text` with `from` replaced by `to`, where `from` must occur exactly once: the deploy file drifting fails here. */
function replaceOnce(text: string, from: string | RegExp, to: string): string {
  const count =
    typeof from === "string" ? text.split(from).length - 1 : (text.match(new RegExp(from, "g")) ?? []).length;
  if (count !== 1)
    throw new Error(`deploy/nginx/partner-sales.conf: expected one ${String(from)}, found ${count}`);
  return text.replace(from, to);
}

/** `text` with every `from` replaced by `to`, where `from` must occur exactly `count` times. */
function replaceAll(text: string, from: string, to: string, count: number): string {
  const found = text.split(from).length - 1;
  if (found !== count)
    throw new Error(`deploy/nginx/partner-sales.conf: expected ${count} × ${from}, found ${found}`);
  return text.split(from).join(to);
}

/**
 * Debian's nginx on 127.0.0.1 with the reference configuration (deploy/nginx/partner-sales.conf) as written, but
 * for what an operator edits: the instances' addresses, the ports it listens on and the certificate (one for
 * localhost, made at test time), on the public server and the metrics one alike.
 */
export async function startNginx(
  instancePorts: [number, number],
  httpsPort: number,
  { certificateFile, keyFile }: IssuedCertificate,
): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), "partner-sales-nginx-"));
  chmodSync(dir, 0o755);
  const httpPort = await freePort();
  const metricsPort = await freePort();
  let site = readFileSync(SITE, "utf8");
  // Each instance: in the upstream, and in the metrics server's location and proxy_pass.
  site = replaceAll(site, "10.0.0.11:3001", `127.0.0.1:${instancePorts[0]}`, 3);
  site = replaceAll(site, "10.0.0.12:3001", `127.0.0.1:${instancePorts[1]}`, 3);
  site = replaceOnce(site, "listen 10.0.0.10:9443 ssl;", `listen 127.0.0.1:${metricsPort} ssl;`);
  site = replaceAll(site, "vendas.partner.example", "localhost", 3);
  site = replaceAll(
    site,
    "    listen 80 default_server;\n    listen [::]:80 default_server;\n",
    `    listen 127.0.0.1:${httpPort} default_server;\n`,
    1,
  );
  site = replaceAll(
    site,
    "    listen 443 ssl default_server;\n    listen [::]:443 ssl default_server;\n",
    `    listen 127.0.0.1:${httpsPort} ssl default_server;\n`,
    1,
  );
  site = replaceOnce(site, "    listen 80;\n    listen [::]:80;\n", `    listen 127.0.0.1:${httpPort};\n`);
  site = replaceOnce(
    site,
    "    listen 443 ssl http2;\n    listen [::]:443 ssl http2;\n",
    `    listen 127.0.0.1:${httpsPort} ssl http2;\n`,
  );
  site = replaceOnce(site, "/etc/ssl/partner-sales/fullchain.pem", certificateFile);
  site = replaceOnce(site, "/etc/ssl/partner-sales/privkey.pem", keyFile);
  site = replaceOnce(site, "/etc/ssl/partner-sales/metrics.pem", certificateFile);
  site = replaceOnce(site, "/etc/ssl/partner-sales/metrics.key", keyFile);
  const accessLog = join(dir, "access.log");
  site = replaceAll(site, "/var/log/nginx/partner-sales.access.log", accessLog, 3);
  // nginx connects to the instances from 127.0.0.2 (all of 127/8 is this machine), so that the proxy's address
  // (TRUSTED_PROXIES) is not the browser's (127.0.0.1): the app must tell them apart.
  site = replaceOnce(
    site,
    "        proxy_pass http://partner_sales;\n",
    "        proxy_pass http://partner_sales;\n        proxy_bind 127.0.0.2;\n",
  );
  writeFileSync(join(dir, "partner-sales.conf"), site);

  for (const temp of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) {
    mkdirSync(join(dir, temp), { mode: 0o777 });
    chmodSync(join(dir, temp), 0o777);
  }
  writeFileSync(
    join(dir, "nginx.conf"),
    [
      "worker_processes 1;",
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      "events { worker_connections 512; }",
      "http {",
      // Debian's own, in the combined format (the whole request line): the site's servers must not write here
      // in it. The same file, so the test reads both.
      `  access_log ${accessLog};`,
      `  client_body_temp_path ${dir}/body;`,
      `  proxy_temp_path ${dir}/proxy;`,
      `  fastcgi_temp_path ${dir}/fastcgi;`,
      `  uwsgi_temp_path ${dir}/uwsgi;`,
      `  scgi_temp_path ${dir}/scgi;`,
      `  include ${dir}/partner-sales.conf;`,
      "}",
      "",
    ].join("\n"),
  );
  const check = spawnSync(
    TEST_PROGRAMS.nginx.path,
    ["-t", "-q", "-e", join(dir, "error.log"), "-c", join(dir, "nginx.conf")],
    { encoding: "utf8" },
  );
  if (check.status !== 0) throw new Error(`nginx -t: ${check.stderr}`);

  const server: RunningProcess = startProcess(
    "nginx",
    TEST_PROGRAMS.nginx.path,
    ["-e", join(dir, "error.log"), "-c", join(dir, "nginx.conf"), "-g", "daemon off;"],
    { cwd: dir, env: process.env, logFile: join(dir, "nginx.out") },
  );
  const deadline = Date.now() + 10_000;
  for (;;) {
    const listening = await fetch(`http://localhost:${httpPort}/`, { redirect: "manual" }).then(
      () => true,
      () => false,
    );
    if (listening) break;
    if (server.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`nginx did not start: ${readFileSync(join(dir, "error.log"), "utf8")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `https://localhost:${httpsPort}`,
    httpUrl: `http://localhost:${httpPort}`,
    metricsUrls: instancePorts.map(
      (port) => `https://localhost:${metricsPort}/instances/127.0.0.1:${port}/metrics`,
    ),
    accessLog: () => readFileSync(accessLog, "utf8"),
    errorLog: () => readFileSync(join(dir, "error.log"), "utf8"),
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
