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
 * Debian's Prometheus on 127.0.0.1, scraping `target`'s /api/metrics every second with `token` as its bearer
 * token, as an operator's would; its data in a throwaway directory.
 */
export async function startPrometheus(target: string, token: string): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), "partner-sales-prometheus-"));
  const port = await freePort();
  const config = join(dir, "prometheus.yml");
  writeFileSync(
    config,
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "scrape_configs:",
      "  - job_name: partner-sales",
      "    metrics_path: /api/metrics",
      "    authorization:",
      "      type: Bearer",
      `      credentials: ${JSON.stringify(token)}`,
      "    static_configs:",
      `      - targets: [${JSON.stringify(new URL(target).host)}]`,
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
