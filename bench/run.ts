import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "@playwright/test";
import { BASELINE_PATH, measurePageScripts } from "../e2e/support/page-weight";
import { appNodeOptions } from "../scripts/app-node-options";
import { buildIfNeeded } from "../scripts/build-if-needed";
import { chromiumLaunchOptions, ensureBrowser } from "../scripts/ensure-browser";
import { startTestPostgres, type TestPostgres } from "../scripts/test-postgres";
import { lighthousePages } from "./lib/lighthouse";
import { runLoad, type LoadTarget } from "./lib/load";
import { freePort, memoryOf, startProcess, waitUntilUp, type RunningProcess } from "./lib/processes";
import { writeReport, type BenchResults, type LoadFigures } from "./lib/report";
import { freshSale } from "./lib/sales";
import { median, summarize } from "./lib/stats";

// `npm run bench`: everything measured side by side in one run on this machine (loopback only, bounded counts).
// BENCH_ROUNDS (default 5) sets how many alternating rounds the submission load runs.
const root = join(import.meta.dirname, "..");
const floorRoot = join(root, "bench/floor");
const nextBin = join(root, "node_modules/.bin/next");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = { 1: 300, 50: 2_000 } as const;
const CONCURRENCY = [1, 50] as const;
const LIGHTHOUSE_RUNS = 3;
const DEMO_AGENT = { email: "agente@demo.local", password: "demo1234" };
const SALE_PATH = "/core/financeiro/partnersale";

function step(message: string) {
  console.log(`\n▸ ${message}`);
}

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init?.method ?? "GET"} ${url} answered ${response.status}.`);
  return (await response.json()) as T;
}

async function signIn(page: Page, origin: string): Promise<string> {
  await page.goto(`${origin}/sign-in`);
  await page.getByLabel("E-mail").fill(DEMO_AGENT.email);
  await page.getByLabel("Senha").fill(DEMO_AGENT.password);
  await page.getByRole("button", { name: "Entrar" }).click();
  await page.waitForURL(`${origin}/`);
  const cookies = await page.context().cookies(origin);
  return cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
}

function gitDescription(): string {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root }).toString().trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--", ".", ":(exclude)bench/results"], { cwd: root })
        .toString()
        .trim() !== "";
    return dirty ? `${commit} + uncommitted changes` : commit;
  } catch {
    return "unknown";
  }
}

async function main() {
  ensureBrowser();
  buildIfNeeded(root);
  buildIfNeeded(floorRoot, {
    sources: ["app", "next.config.mjs", "../../package-lock.json"],
    nextBin,
    label: "the framework floor (bench/floor)",
    buildArgs: ["--webpack"],
  });

  mkdirSync(join(root, ".tmp"), { recursive: true });
  const work = mkdtempSync(join(root, ".tmp/bench-"));
  const [sandboxPort, appPort, proxyPort, floorPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const sandbox = `http://127.0.0.1:${sandboxPort}`;
  const app = `http://127.0.0.1:${appPort}`;
  const proxy = `http://127.0.0.1:${proxyPort}`;
  const floor = `http://127.0.0.1:${floorPort}`;
  const env = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production" as const,
    SANDBOX_PORT: String(sandboxPort),
    DATA_DIR: join(work, "data"),
    PARTNER_API_BASE_URL: "",
    DATABASE_URL: "",
    EMBED_ALLOWED_ORIGINS: "",
    LOG_FILE: "",
  };
  const processes: RunningProcess[] = [];
  let postgres: TestPostgres | undefined;
  const start = (
    name: string,
    command: string,
    args: string[],
    { cwd = root, extraEnv = {} }: { cwd?: string; extraEnv?: Record<string, string> } = {},
  ) => {
    const started = startProcess(name, command, args, {
      env: { ...env, ...extraEnv },
      cwd,
      logFile: join(work, `${name}.log`),
    });
    processes.push(started);
    return started;
  };
  const nextStart = (name: string, port: number, options?: Parameters<typeof start>[3]) =>
    start(name, nextBin, ["start", "--port", String(port), "--hostname", "127.0.0.1"], options);
  // The app as `npm start` serves it: Next.js behind scripts/server.mjs.
  const appStart = (name: string, port: number, options?: Parameters<typeof start>[3]) =>
    start(
      name,
      process.execPath,
      ["scripts/server.mjs", "--port", String(port), "--hostname", "127.0.0.1"],
      options,
    );
  // What `npm start` runs the app with (scripts/start.ts).
  const appEnv = { NODE_OPTIONS: appNodeOptions(process.env.NODE_OPTIONS) };

  let finished = false;
  try {
    step("Starting the sandbox, the app, a node:http proxy and the framework floor");
    const sandboxProcess = start("sandbox", process.execPath, ["--import", "tsx", "sandbox/index.ts"]);
    await waitUntilUp(`${sandbox}/__sandbox/stats`, sandboxProcess);
    const appProcess = appStart("app", appPort, { extraEnv: appEnv });
    const proxyProcess = start("proxy", process.execPath, [
      "--import",
      "tsx",
      "bench/node-proxy.ts",
      String(proxyPort),
      sandbox,
    ]);
    const floorProcess = nextStart("floor", floorPort, { cwd: floorRoot });
    await Promise.all([
      waitUntilUp(`${app}/api/health`, appProcess),
      waitUntilUp(`${proxy}/__sandbox/stats`, proxyProcess),
      waitUntilUp(floor, floorProcess),
    ]);
    const sandboxStats = () =>
      json<{ tokenRequests: number; saleRequests: number }>(`${sandbox}/__sandbox/stats`);

    step("Browser weight: JavaScript each page loads, gzipped, against the framework baseline");
    const browser = await chromium.launch(chromiumLaunchOptions());
    let cookie: string;
    let pageWeight: BenchResults["pageWeight"];
    try {
      const signedOut = await browser.newPage();
      const baseline = await measurePageScripts(signedOut, `${app}${BASELINE_PATH}`);
      const signInPage = await measurePageScripts(signedOut, `${app}/sign-in`);
      const signedIn = await browser.newPage();
      cookie = await signIn(signedIn, app);
      const formPage = await measurePageScripts(signedIn, `${app}/`);
      const embedPage = await measurePageScripts(signedIn, `${app}/embed`);
      const floorPage = await measurePageScripts(signedOut, floor);
      pageWeight = {
        baseline: { path: BASELINE_PATH, gzipBytes: baseline.gzipBytes, files: baseline.scripts.length },
        emptyNextApp: { gzipBytes: floorPage.gzipBytes, files: floorPage.scripts.length },
        pages: [
          { path: "/sign-in", weight: signInPage },
          { path: "/", weight: formPage },
          { path: "/embed", weight: embedPage },
        ].map(({ path, weight }) => ({
          path,
          gzipBytes: weight.gzipBytes,
          files: weight.scripts.length,
          addedGzipBytes: weight.gzipBytes - baseline.gzipBytes,
          ownFiles: weight.scripts
            .filter((script) => !baseline.scripts.some((base) => base.url === script.url))
            .map((script) => ({ file: script.url, gzipBytes: script.gzipBytes })),
        })),
      };
    } finally {
      await browser.close();
    }
    const appSale = (name = "app", origin = app, sessionCookie = cookie): LoadTarget => ({
      name,
      origin,
      expectStatus: 201,
      makeRequest: () => ({
        path: "/api/sales",
        headers: {
          "content-type": "application/json",
          cookie: sessionCookie,
          "idempotency-key": randomUUID(),
        },
        body: JSON.stringify(freshSale()),
      }),
    });

    step("Token economy");
    const bootExchanges = (await sandboxStats()).tokenRequests;
    const thousand = await runLoad(appSale(), { concurrency: 10, requests: 1_000, warmUp: 0 });
    const afterThousand = await sandboxStats();
    await json(`${sandbox}/__sandbox/tokens/revoke`, { method: "POST" });
    const revoked = await runLoad(appSale(), { concurrency: 200, requests: 200, warmUp: 0 });
    const afterRevoke = await sandboxStats();
    const coldFile = join(work, "token-cold.json");
    const cold = start("token-cold", process.execPath, [
      "--conditions=react-server",
      "--import",
      "tsx",
      "bench/token-cold.ts",
      coldFile,
    ]);
    await new Promise((resolve) => cold.child.once("exit", resolve));
    const coldResult = JSON.parse(readFileSync(coldFile, "utf8")) as {
      sales: number;
      accepted: number;
      tokenExchanges: number;
    };
    const tokens: BenchResults["tokens"] = {
      perThousandSales: {
        sales: thousand.latenciesMs.length,
        errors: thousand.errors,
        tokenExchanges: afterThousand.tokenRequests,
        includingBootWarmUp: bootExchanges,
      },
      concurrentAfterRevoke: {
        sales: revoked.latenciesMs.length,
        errors: revoked.errors,
        tokenExchanges: afterRevoke.tokenRequests - afterThousand.tokenRequests,
      },
      concurrentColdClient: coldResult,
    };
    console.log(JSON.stringify(tokens));

    // The same app on PostgreSQL (DATABASE_URL), where the database works outside the app's process: a
    // throwaway server as `npm test` starts one, when PostgreSQL is installed or can be.
    postgres = await startTestPostgres().catch((error: unknown) => {
      console.log(`No PostgreSQL for the comparison: ${(error as Error).message}`);
      return undefined;
    });
    // Started after the token economy, so its own token exchange is not counted there.
    let postgresApp: string | undefined;
    let postgresCookie: string | undefined;
    let postgresPid: number | undefined;
    if (postgres) {
      const postgresAppPort = await freePort();
      postgresApp = `http://127.0.0.1:${postgresAppPort}`;
      const postgresAppProcess = appStart("app-postgresql", postgresAppPort, {
        extraEnv: { ...appEnv, DATABASE_URL: postgres.url, DATA_DIR: join(work, "data-postgresql") },
      });
      await waitUntilUp(`${postgresApp}/api/health`, postgresAppProcess);
      postgresPid = postgresAppProcess.pid;
      const signInBrowser = await chromium.launch(chromiumLaunchOptions());
      try {
        postgresCookie = await signIn(await signInBrowser.newPage(), postgresApp);
      } finally {
        await signInBrowser.close();
      }
    }
    step(`Submission overhead: ${ROUNDS} alternating rounds at concurrency ${CONCURRENCY.join(" and ")}`);
    const { access_token: bearer } = await json<{ access_token: string }>(
      `${sandbox}/core/sso/connect/token`,
      {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: "sandbox-client",
          client_secret: "sandbox-secret",
        }),
      },
    );
    const upstreamSale = (name: string, origin: string): LoadTarget => ({
      name,
      origin,
      expectStatus: 200,
      makeRequest: () => ({
        path: SALE_PATH,
        headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
        body: JSON.stringify(freshSale()),
      }),
    });
    const targets: LoadTarget[] = [
      upstreamSale("direct", sandbox),
      upstreamSale("node-proxy", proxy),
      appSale(),
      ...(postgresApp && postgresCookie ? [appSale("app-postgresql", postgresApp, postgresCookie)] : []),
      {
        name: "empty-route",
        origin: floor,
        expectStatus: 200,
        makeRequest: () => ({
          path: "/api/empty",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(freshSale()),
        }),
      },
    ];
    const rounds: Record<
      string,
      Record<number, { latenciesMs: number[]; rps: number[]; p50: number[] }>
    > = {};
    const loadErrors: { target: string; concurrency: number; status: number | string; count: number }[] = [];
    let peakRssDuringLoadMb = 0;
    let postgresPeakRssDuringLoadMb = 0;
    const sampler = setInterval(() => {
      peakRssDuringLoadMb = Math.max(peakRssDuringLoadMb, memoryOf(appProcess.pid).rssMb);
      if (postgresPid) {
        postgresPeakRssDuringLoadMb = Math.max(postgresPeakRssDuringLoadMb, memoryOf(postgresPid).rssMb);
      }
    }, 100);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const concurrency of CONCURRENCY) {
          // A different order every round, so no target always runs first or right after the app.
          const order = targets.map((_, index) => targets[(index + round) % targets.length]!);
          for (const target of order) {
            const result = await runLoad(target, { concurrency, requests: REQUESTS[concurrency] });
            const summary = summarize(result.latenciesMs, result.durationMs);
            const slot = ((rounds[target.name] ??= {})[concurrency] ??= {
              latenciesMs: [],
              rps: [],
              p50: [],
            });
            slot.latenciesMs.push(...result.latenciesMs);
            slot.rps.push(summary.requestsPerSecond);
            slot.p50.push(summary.p50Ms);
            for (const error of result.errors)
              loadErrors.push({ target: target.name, concurrency, ...error });
            console.log(
              `  round ${round + 1} c=${concurrency} ${target.name.padEnd(12)} p50 ${summary.p50Ms.toFixed(2)} ms` +
                `  p99 ${summary.p99Ms.toFixed(2)} ms  ${summary.requestsPerSecond.toFixed(0)} req/s`,
            );
          }
        }
      }
    } finally {
      clearInterval(sampler);
    }
    const load: LoadFigures[] = [];
    for (const concurrency of CONCURRENCY) {
      for (const target of targets) {
        const slot = rounds[target.name]![concurrency]!;
        const pooled = summarize(slot.latenciesMs, 1);
        load.push({
          target: target.name,
          concurrency,
          requests: slot.latenciesMs.length,
          p50Ms: pooled.p50Ms,
          p99Ms: pooled.p99Ms,
          requestsPerSecond: median(slot.rps),
        });
      }
    }
    const perRound = (name: string, concurrency: number) => rounds[name]![concurrency]!;
    const overhead = {
      addedP50MsAtConcurrency1: median(
        perRound("app", 1).p50.map((p50, round) => p50 - perRound("direct", 1).p50[round]!),
      ),
      proxyAddedP50MsAtConcurrency1: median(
        perRound("node-proxy", 1).p50.map((p50, round) => p50 - perRound("direct", 1).p50[round]!),
      ),
      throughputVsEmptyRouteAtConcurrency50: median(
        perRound("app", 50).rps.map((rps, round) => rps / perRound("empty-route", 50).rps[round]!),
      ),
      ...(rounds["app-postgresql"]
        ? {
            postgresqlAddedP50MsAtConcurrency1: median(
              perRound("app-postgresql", 1).p50.map((p50, round) => p50 - perRound("direct", 1).p50[round]!),
            ),
            postgresqlThroughputVsEmptyRouteAtConcurrency50: median(
              perRound("app-postgresql", 50).rps.map(
                (rps, round) => rps / perRound("empty-route", 50).rps[round]!,
              ),
            ),
          }
        : {}),
    };

    step(`Lighthouse: ${LIGHTHOUSE_RUNS} runs per page, desktop, plus one mobile run for reference`);
    const lighthousePagesList = [{ path: "/sign-in" }, { path: "/", cookie }, { path: "/embed", cookie }];
    const lighthouse = [
      ...(await lighthousePages(app, lighthousePagesList, { runs: LIGHTHOUSE_RUNS, presets: ["desktop"] })),
      ...(await lighthousePages(app, lighthousePagesList, { runs: 1, presets: ["mobile"] })),
    ];

    const memory = memoryOf(appProcess.pid);
    const results: BenchResults = {
      ranAt: new Date().toISOString(),
      commit: gitDescription(),
      machine: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, node: process.version },
      rounds: ROUNDS,
      pageWeight,
      lighthouse,
      load,
      loadErrors,
      overhead,
      tokens,
      memory: {
        peakRssDuringLoadMb,
        peakRssWholeRunMb: memory.peakRssMb,
        ...(postgresPid
          ? {
              postgresql: {
                peakRssDuringLoadMb: postgresPeakRssDuringLoadMb,
                peakRssWholeRunMb: memoryOf(postgresPid).peakRssMb,
              },
            }
          : {}),
      },
    };
    const { markdownPath, invalid, missed } = writeReport(root, results);
    console.log(`\nWrote ${markdownPath}`);
    const list = (items: string[]) => items.map((item) => `  - ${item}`).join("\n");
    // Missed targets are findings (latest.md says why); wrong answers under load make the figures worthless.
    if (missed.length > 0) console.log(`Targets missed (see latest.md):\n${list(missed)}`);
    if (invalid.length > 0) {
      console.error(`This run is not valid, some answers were wrong:\n${list(invalid)}`);
      process.exitCode = 1;
    }
    finished = true;
  } finally {
    for (const running of processes.reverse()) await running.stop();
    postgres?.stop();
    // The servers' logs stay for a run that broke off.
    if (finished) rmSync(work, { recursive: true, force: true });
    else console.error(`Logs of this run: ${work}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
