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
import { databaseCounts } from "./lib/app-client";
import { lighthousePages } from "./lib/lighthouse";
import { runLoad, type LoadTarget } from "./lib/load";
import {
  freePort,
  LIMITS_LIFTED,
  memoryOf,
  startProcess,
  waitUntilUp,
  type RunningProcess,
} from "./lib/processes";
import { writeReport, type BenchResults, type LoadFigures } from "./lib/report";
import { appSale, freshSale } from "./lib/sales";
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

// The app's /api/metrics answers this bearer token: the bench reads the database round trips from it.
const METRICS_TOKEN = randomUUID();

function sandboxStats(sandbox: string) {
  return json<{ tokenRequests: number; saleRequests: number }>(`${sandbox}/__sandbox/stats`);
}

/** A sale straight to the partner API at `origin`, with a bearer token of its own. */
function upstreamSale(name: string, origin: string, bearer: string): LoadTarget {
  return {
    name,
    origin,
    expectStatus: 200,
    makeRequest: () => ({
      path: SALE_PATH,
      headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
      body: JSON.stringify(freshSale()),
    }),
  };
}

type StartOptions = { cwd?: string; extraEnv?: Record<string, string> };

/** Where the run's servers listen and how to start its processes, each logging to `work`. */
interface Services {
  work: string;
  sandbox: string;
  app: string;
  proxy: string;
  floor: string;
  ports: { app: number; proxy: number; floor: number };
  appEnv: { NODE_OPTIONS: string };
  start: (name: string, command: string, args: string[], options?: StartOptions) => RunningProcess;
  nextStart: (name: string, port: number, options?: StartOptions) => RunningProcess;
  appStart: (name: string, port: number, options?: StartOptions) => RunningProcess;
  /** Stops every process started so far, the last one first. */
  stop: () => Promise<void>;
}

/** The services once the sandbox, the app, the proxy and the floor answer. */
interface Bench extends Services {
  appProcess: RunningProcess;
}

interface PostgresApp {
  origin: string;
  cookie: string;
  pid: number;
}

interface SubmissionOverhead {
  load: LoadFigures[];
  loadErrors: BenchResults["loadErrors"];
  overhead: BenchResults["overhead"];
  peakRssDuringLoadMb: number;
  postgresPeakRssDuringLoadMb: number;
  dbRoundTripsPerSale: BenchResults["dbRoundTripsPerSale"];
}

type Rounds = Record<string, Record<number, { latenciesMs: number[]; rps: number[]; p50: number[] }>>;

function buildAll() {
  ensureBrowser();
  buildIfNeeded(root);
  buildIfNeeded(floorRoot, {
    sources: ["app", "next.config.mjs", "../../package-lock.json"],
    nextBin,
    label: "the framework floor (bench/floor)",
    buildArgs: ["--webpack"],
  });
}

// Starts nothing: the process list exists before the first start, so a start that fails still leaves
// every process started before it to be stopped.
async function prepareServices(work: string): Promise<Services> {
  const [sandboxPort, appPort, proxyPort, floorPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
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
    METRICS_TOKEN,
    ...LIMITS_LIFTED,
  };
  const processes: RunningProcess[] = [];
  const start: Services["start"] = (name, command, args, { cwd = root, extraEnv = {} } = {}) => {
    const started = startProcess(name, command, args, {
      env: { ...env, ...extraEnv },
      cwd,
      logFile: join(work, `${name}.log`),
    });
    processes.push(started);
    return started;
  };
  return {
    work,
    sandbox: `http://127.0.0.1:${sandboxPort}`,
    app: `http://127.0.0.1:${appPort}`,
    proxy: `http://127.0.0.1:${proxyPort}`,
    floor: `http://127.0.0.1:${floorPort}`,
    ports: { app: appPort, proxy: proxyPort, floor: floorPort },
    // What `npm start` runs the app with (scripts/start.ts).
    appEnv: { NODE_OPTIONS: appNodeOptions(process.env.NODE_OPTIONS) },
    start,
    nextStart: (name, port, options) =>
      start(name, nextBin, ["start", "--port", String(port), "--hostname", "127.0.0.1"], options),
    // The app as `npm start` serves it: Next.js behind scripts/server.mjs.
    appStart: (name, port, options) =>
      start(
        name,
        process.execPath,
        ["scripts/server.mjs", "--port", String(port), "--hostname", "127.0.0.1"],
        options,
      ),
    stop: async () => {
      for (const running of processes.reverse()) await running.stop();
    },
  };
}

async function startServices(services: Services): Promise<Bench> {
  const { sandbox, app, proxy, floor, ports, appEnv, start, nextStart, appStart } = services;
  step("Starting the sandbox, the app, a node:http proxy and the framework floor");
  const sandboxProcess = start("sandbox", process.execPath, ["--import", "tsx", "sandbox/index.ts"]);
  await waitUntilUp(`${sandbox}/__sandbox/stats`, sandboxProcess);
  const appProcess = appStart("app", ports.app, { extraEnv: appEnv });
  const proxyProcess = start("proxy", process.execPath, [
    "--import",
    "tsx",
    "bench/node-proxy.ts",
    String(ports.proxy),
    sandbox,
  ]);
  const floorProcess = nextStart("floor", ports.floor, { cwd: floorRoot });
  await Promise.all([
    waitUntilUp(`${app}/api/health`, appProcess),
    waitUntilUp(`${proxy}/__sandbox/stats`, proxyProcess),
    waitUntilUp(floor, floorProcess),
  ]);
  return { ...services, appProcess };
}

async function measurePageWeight({
  app,
  floor,
}: Bench): Promise<{ pageWeight: BenchResults["pageWeight"]; cookie: string }> {
  step("Browser weight: JavaScript each page loads, gzipped, against the framework baseline");
  const browser = await chromium.launch(chromiumLaunchOptions());
  try {
    const signedOut = await browser.newPage();
    const baseline = await measurePageScripts(signedOut, `${app}${BASELINE_PATH}`);
    const signInPage = await measurePageScripts(signedOut, `${app}/sign-in`);
    const signedIn = await browser.newPage();
    const cookie = await signIn(signedIn, app);
    const formPage = await measurePageScripts(signedIn, `${app}/`);
    const embedPage = await measurePageScripts(signedIn, `${app}/embed`);
    const floorPage = await measurePageScripts(signedOut, floor);
    const pageWeight: BenchResults["pageWeight"] = {
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
    return { pageWeight, cookie };
  } finally {
    await browser.close();
  }
}

async function measureTokenEconomy(
  { sandbox, app, work, start }: Bench,
  cookie: string,
): Promise<BenchResults["tokens"]> {
  step("Token economy");
  const bootExchanges = (await sandboxStats(sandbox)).tokenRequests;
  const thousand = await runLoad(appSale("app", app, cookie), {
    concurrency: 10,
    requests: 1_000,
    warmUp: 0,
  });
  const afterThousand = await sandboxStats(sandbox);
  await json(`${sandbox}/__sandbox/tokens/revoke`, { method: "POST" });
  const revoked = await runLoad(appSale("app", app, cookie), { concurrency: 200, requests: 200, warmUp: 0 });
  const afterRevoke = await sandboxStats(sandbox);
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
  return tokens;
}

// The same app on PostgreSQL (DATABASE_URL), where the database works outside the app's process: a
// throwaway server as `npm test` starts one, when PostgreSQL is installed or can be.
function startPostgres(): Promise<TestPostgres | undefined> {
  return startTestPostgres().catch((error: unknown) => {
    console.log(`No PostgreSQL for the comparison: ${(error as Error).message}`);
    return undefined;
  });
}

async function startPostgresApp(
  { work, appEnv, appStart }: Bench,
  postgres: TestPostgres,
): Promise<PostgresApp> {
  const postgresAppPort = await freePort();
  const origin = `http://127.0.0.1:${postgresAppPort}`;
  const postgresAppProcess = appStart("app-postgresql", postgresAppPort, {
    extraEnv: { ...appEnv, DATABASE_URL: postgres.url, DATA_DIR: join(work, "data-postgresql") },
  });
  await waitUntilUp(`${origin}/api/health`, postgresAppProcess);
  const pid = postgresAppProcess.pid;
  const signInBrowser = await chromium.launch(chromiumLaunchOptions());
  try {
    const cookie = await signIn(await signInBrowser.newPage(), origin);
    return { origin, cookie, pid };
  } finally {
    await signInBrowser.close();
  }
}

async function submissionTargets(
  { sandbox, proxy, app, floor }: Bench,
  cookie: string,
  postgresApp: PostgresApp | undefined,
): Promise<LoadTarget[]> {
  const { access_token: bearer } = await json<{ access_token: string }>(`${sandbox}/core/sso/connect/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: "sandbox-client",
      client_secret: "sandbox-secret",
    }),
  });
  return [
    upstreamSale("direct", sandbox, bearer),
    upstreamSale("node-proxy", proxy, bearer),
    appSale("app", app, cookie),
    ...(postgresApp?.cookie ? [appSale("app-postgresql", postgresApp.origin, postgresApp.cookie)] : []),
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
}

/** Each target's latencies pooled over the rounds, with the median of its rounds' throughput. */
function pooledLoad(targets: LoadTarget[], rounds: Rounds): LoadFigures[] {
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
  return load;
}

/** Medians of round-by-round differences and ratios, each round compared with itself. */
function overheadFigures(rounds: Rounds): BenchResults["overhead"] {
  const perRound = (name: string, concurrency: number) => rounds[name]![concurrency]!;
  return {
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
}

async function measureSubmissionOverhead(
  bench: Bench,
  cookie: string,
  postgresApp: PostgresApp | undefined,
): Promise<SubmissionOverhead> {
  step(`Submission overhead: ${ROUNDS} alternating rounds at concurrency ${CONCURRENCY.join(" and ")}`);
  const targets = await submissionTargets(bench, cookie, postgresApp);
  const rounds: Rounds = {};
  const roundTrips: Record<string, Record<number, { roundTrips: number; sales: number }>> = {};
  const loadErrors: BenchResults["loadErrors"] = [];
  const postgresPid = postgresApp?.pid;
  let peakRssDuringLoadMb = 0;
  let postgresPeakRssDuringLoadMb = 0;
  const sampler = setInterval(() => {
    peakRssDuringLoadMb = Math.max(peakRssDuringLoadMb, memoryOf(bench.appProcess.pid).rssMb);
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
          const before = target.countsDatabase
            ? await databaseCounts(target.origin, METRICS_TOKEN)
            : undefined;
          const result = await runLoad(target, { concurrency, requests: REQUESTS[concurrency] });
          let perSale = "";
          if (before) {
            const after = await databaseCounts(target.origin, METRICS_TOKEN);
            const trips = ((roundTrips[target.name] ??= {})[concurrency] ??= { roundTrips: 0, sales: 0 });
            trips.roundTrips += after.roundTrips - before.roundTrips;
            trips.sales += after.sales - before.sales;
            perSale = `  ${((after.roundTrips - before.roundTrips) / (after.sales - before.sales)).toFixed(2)} db round trips/sale`;
          }
          const summary = summarize(result.latenciesMs, result.durationMs);
          const slot = ((rounds[target.name] ??= {})[concurrency] ??= {
            latenciesMs: [],
            rps: [],
            p50: [],
          });
          slot.latenciesMs.push(...result.latenciesMs);
          slot.rps.push(summary.requestsPerSecond);
          slot.p50.push(summary.p50Ms);
          for (const error of result.errors) loadErrors.push({ target: target.name, concurrency, ...error });
          console.log(
            `  round ${round + 1} c=${concurrency} ${target.name.padEnd(12)} p50 ${summary.p50Ms.toFixed(2)} ms` +
              `  p99 ${summary.p99Ms.toFixed(2)} ms  ${summary.requestsPerSecond.toFixed(0)} req/s${perSale}`,
          );
        }
      }
    }
  } finally {
    clearInterval(sampler);
  }
  return {
    load: pooledLoad(targets, rounds),
    loadErrors,
    overhead: overheadFigures(rounds),
    peakRssDuringLoadMb,
    postgresPeakRssDuringLoadMb,
    dbRoundTripsPerSale: Object.entries(roundTrips).flatMap(([target, byConcurrency]) =>
      Object.entries(byConcurrency).map(([concurrency, counted]) => ({
        target,
        concurrency: Number(concurrency),
        roundTripsPerSale: counted.roundTrips / counted.sales,
      })),
    ),
  };
}

async function measureLighthouse({ app }: Bench, cookie: string): Promise<BenchResults["lighthouse"]> {
  step(`Lighthouse: ${LIGHTHOUSE_RUNS} runs per page, desktop, plus one mobile run for reference`);
  const lighthousePagesList = [{ path: "/sign-in" }, { path: "/", cookie }, { path: "/embed", cookie }];
  return [
    ...(await lighthousePages(app, lighthousePagesList, { runs: LIGHTHOUSE_RUNS, presets: ["desktop"] })),
    ...(await lighthousePages(app, lighthousePagesList, { runs: 1, presets: ["mobile"] })),
  ];
}

/** The figures of the run, with the whole-run memory peaks read now, at its end. */
function collectResults(
  { appProcess }: Bench,
  figures: {
    pageWeight: BenchResults["pageWeight"];
    tokens: BenchResults["tokens"];
    submission: SubmissionOverhead;
    lighthouse: BenchResults["lighthouse"];
    postgresPid: number | undefined;
  },
): BenchResults {
  const { pageWeight, tokens, submission, lighthouse, postgresPid } = figures;
  const memory = memoryOf(appProcess.pid);
  return {
    ranAt: new Date().toISOString(),
    commit: gitDescription(),
    machine: { cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length, node: process.version },
    rounds: ROUNDS,
    pageWeight,
    lighthouse,
    load: submission.load,
    loadErrors: submission.loadErrors,
    overhead: submission.overhead,
    dbRoundTripsPerSale: submission.dbRoundTripsPerSale,
    tokens,
    memory: {
      peakRssDuringLoadMb: submission.peakRssDuringLoadMb,
      peakRssWholeRunMb: memory.peakRssMb,
      ...(postgresPid
        ? {
            postgresql: {
              peakRssDuringLoadMb: submission.postgresPeakRssDuringLoadMb,
              peakRssWholeRunMb: memoryOf(postgresPid).peakRssMb,
            },
          }
        : {}),
    },
  };
}

function report(results: BenchResults) {
  const { markdownPath, invalid, missed } = writeReport(root, results);
  console.log(`\nWrote ${markdownPath}`);
  const list = (items: string[]) => items.map((item) => `  - ${item}`).join("\n");
  // Missed targets are findings (latest.md says why); wrong answers under load make the figures worthless.
  if (missed.length > 0) console.log(`Targets missed (see latest.md):\n${list(missed)}`);
  if (invalid.length > 0) {
    console.error(`This run is not valid, some answers were wrong:\n${list(invalid)}`);
    process.exitCode = 1;
  }
}

async function main() {
  buildAll();
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const work = mkdtempSync(join(root, ".tmp/bench-"));
  const services = await prepareServices(work);
  let postgres: TestPostgres | undefined;
  let finished = false;
  try {
    const bench = await startServices(services);
    const { pageWeight, cookie } = await measurePageWeight(bench);
    const tokens = await measureTokenEconomy(bench, cookie);
    // Started after the token economy, so its own token exchange is not counted there.
    postgres = await startPostgres();
    const postgresApp = postgres ? await startPostgresApp(bench, postgres) : undefined;
    const submission = await measureSubmissionOverhead(bench, cookie, postgresApp);
    const lighthouse = await measureLighthouse(bench, cookie);
    report(
      collectResults(bench, { pageWeight, tokens, submission, lighthouse, postgresPid: postgresApp?.pid }),
    );
    finished = true;
  } finally {
    await services.stop();
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
