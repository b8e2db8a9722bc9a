import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startProcess, waitUntilUp, type RunningProcess } from "../../bench/lib/processes";
import { TEST_PROGRAMS } from "../../scripts/debian-packages";

export interface Prometheus {
  url: string;
  /** One instant vector's value, or undefined while the series does not exist. */
  value(query: string): Promise<number | undefined>;
  stop(): Promise<void>;
}

/**
 * Debian's Prometheus on 127.0.0.1, scraping each of `targets` (an instance's metrics URL) every second with `token`
 * as its bearer token, as an operator's would (docs/production.md's scrape configuration: over https, it trusts `caFile`
 * alone); its data in a throwaway directory.
 */
export async function startPrometheus(
  targets: string[],
  token: string,
  { caFile }: { caFile?: string } = {},
): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), "partner-sales-prometheus-"));
  const port = await freePort();
  const config = join(dir, "prometheus.yml");
  const urls = targets.map((target) => new URL(target));
  const scheme = urls[0]!.protocol.replace(":", "");
  if (urls.some((url) => url.protocol !== `${scheme}:`)) throw new Error("One scheme for every target.");
  writeFileSync(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "scrape_configs:",
      "  - job_name: partner-sales",
      `    scheme: ${scheme}`,
      ...(caFile ? ["    tls_config:", `      ca_file: ${JSON.stringify(caFile)}`] : []),
      "    authorization:",
      "      type: Bearer",
      `      credentials: ${JSON.stringify(token)}`,
      "    static_configs:",
      ...urls.flatMap((url) => [
        `      - targets: [${JSON.stringify(url.host)}]`,
        // Targets behind one address (nginx's) tell their series apart by the path.
        `        labels: { __metrics_path__: ${JSON.stringify(url.pathname)}, instance: ${JSON.stringify(url.host + url.pathname)} }`,
      ]),
      "",
    ].join("\n"),
  );
  const server: RunningProcess = startProcess(
    "prometheus",
    TEST_PROGRAMS.prometheus.path,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { cwd: dir, env: process.env, logFile: join(dir, "prometheus.log") },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(`${url}/-/ready`, server, 60_000);
  return {
    url,
    async value(query) {
      const response = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query })}`);
      const body = (await response.json()) as {
        status: string;
        data?: { result: { value: [number, string] }[] };
      };
      if (body.status !== "success") throw new Error(`Prometheus refused ${query}: ${JSON.stringify(body)}`);
      const [first] = body.data!.result;
      return first ? Number(first.value[1]) : undefined;
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
