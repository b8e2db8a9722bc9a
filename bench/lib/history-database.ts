import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { DEMO_PASSWORD } from "../../lib/auth/demo-account-list";
import { startSandbox } from "../../sandbox/test-support";
import type { ApiFigures } from "./api-report";
import { signIn } from "./app-client";
import { killEveryApp, startApp, type AppOptions, type UpkeepPause } from "./app-server";
import { waitForAutovacuum } from "./autovacuum";
import {
  supervisorPages,
  timeExport,
  timePages,
  type ExportFigures,
  type PageTiming,
  type Probes,
} from "./history-pages";
import { runImport, type ImportFigures } from "./ledger-import";
import { freePort } from "./processes";
import { makeRealSales } from "./real-sales";
import { runWorker, SERVER_CONDITIONS } from "./worker";

export interface DatabaseFigures {
  database: string;
  sales: number;
  /** What `POST /api/sales` answered for the real sales, by status. */
  realSales: Record<string, number>;
  import: Omit<ImportFigures, "agentId" | "deepSubmissionId">;
  /** PGlite's DATA_DIR after the import, and once the bench is done. */
  dataDirMb?: { afterImport: number; atEnd: number };
  starts: { firstMs: number; afterCleanStopMs: number; afterKillMs: number; cleanStopMs: number };
  /** PostgreSQL: how long its autovacuum took to catch up with the new ledger, waited for before the pages. */
  autovacuumSeconds?: number;
  pages: PageTiming[];
  exported: ExportFigures;
  upkeep: {
    pauses: number;
    maxMs: number;
    totalMs: number;
    /** Those logged while the pages (and the export) were being timed. */
    duringPages: number;
    duringPagesMaxMs: number;
    tasks: UpkeepPause[];
  };
  /** The machine's 1-minute load average after the run: on two cores, anything near 2 or above is contention. */
  loadAverage: number;
}

export interface RunSettings {
  root: string;
  sales: number;
  realSales: number;
  runs: number;
  exportRuns: number;
}

const SUPERVISOR = "supervisor@demo.local";
const AGENT = "agente@demo.local";

function directoryBytes(path: string): number {
  return readdirSync(path, { withFileTypes: true }).reduce((sum, entry) => {
    const child = join(path, entry.name);
    if (entry.isDirectory()) return sum + directoryBytes(child);
    return sum + (entry.isFile() ? statSync(child).size : 0);
  }, 0);
}

function summarize(upkeep: UpkeepPause[], timing: { from: string; to: string }): DatabaseFigures["upkeep"] {
  const longest = (pauses: UpkeepPause[]) => Math.max(0, ...pauses.map((pause) => pause.ms));
  const duringPages = upkeep.filter((pause) => pause.at >= timing.from && pause.at <= timing.to);
  return {
    pauses: upkeep.length,
    maxMs: longest(upkeep),
    totalMs: upkeep.reduce((sum, pause) => sum + pause.ms, 0),
    duringPages: duringPages.length,
    duringPagesMaxMs: longest(duringPages),
    tasks: upkeep,
  };
}

/** What one database's run shares between its steps. */
interface Run {
  app: AppOptions;
  sandbox: string;
  settings: RunSettings;
  log: (message: string) => void;
}

/** The real sales through the app's API, then, the app stopped, the import: the ledger the pages are timed on. */
async function buildLedger({ app, sandbox, settings, log }: Run) {
  const running = await startApp(app, "empty database, real sales");
  const made = await makeRealSales({
    origin: running.origin,
    sandbox,
    cookie: await signIn(running.origin, AGENT, DEMO_PASSWORD),
    count: settings.realSales,
  });
  log(`${settings.realSales} real sales: ${JSON.stringify(made.statuses)}`);
  await running.stop();
  const imported = await runImport(
    settings.root,
    { ...app.env, BENCH_HISTORY_SALES: String(settings.sales) },
    log,
  );
  return { made, imported };
}

/** The app's first start on the ledger, then every page and the export as a signed-in supervisor, then a clean stop. */
async function timeWorkspace({ app, settings, log }: Run, probes: Probes) {
  const running = await startApp(app, "first start on the ledger, pages timed");
  log(`ready in ${(running.readyMs / 1000).toFixed(1)} s on the new ledger`);
  // PostgreSQL's upkeep is its autovacuum, which starts on the million rows just written as the app does: the pages
  // are timed once it has caught up, as they are served day to day (PGlite's upkeep ran before it was ready).
  const autovacuumSeconds = app.env.DATABASE_URL
    ? await waitForAutovacuum(app.env.DATABASE_URL, log)
    : undefined;
  const cookie = await signIn(running.origin, SUPERVISOR, DEMO_PASSWORD);
  const timing = { from: new Date().toISOString(), to: "" };
  const pages = await timePages(running.origin, cookie, supervisorPages(probes), {
    runs: settings.runs,
    warmUps: 3,
    log,
  });
  const exported = await timeExport(running.origin, cookie, running.pid, { runs: settings.exportRuns, log });
  timing.to = new Date().toISOString();
  return {
    firstMs: running.readyMs,
    autovacuumSeconds,
    pages,
    exported,
    timing,
    cleanStopMs: await running.stop(),
  };
}

/** Issue 34's figures on the ledger, the app stopped: bench/api-worker.ts, in a process of its own. */
async function measureApi({ app, settings, log }: Run, database: string): Promise<ApiFigures> {
  log("the key check beside the session check; the changes feed and the search");
  return runWorker<ApiFigures>(
    settings.root,
    "bench/api-worker.ts",
    { ...app.env, BENCH_API_DATABASE: database },
    SERVER_CONDITIONS.serverOnly,
  );
}

/** Start to ready after a clean stop, and after a SIGKILL that follows a few sales. */
async function timeRestarts({ app, sandbox, settings, log }: Run) {
  let running = await startApp(app, "after a clean stop");
  const afterCleanStopMs = running.readyMs;
  log(`ready in ${(afterCleanStopMs / 1000).toFixed(1)} s after a clean stop`);
  // Sales being written when the server dies: the database has work of its own to recover.
  await makeRealSales({
    origin: running.origin,
    sandbox,
    cookie: await signIn(running.origin, AGENT, DEMO_PASSWORD),
    count: 30,
    firstCustomer: settings.sales + settings.realSales,
  });
  await running.kill();
  running = await startApp(app, "after SIGKILL");
  const afterKillMs = running.readyMs;
  log(`ready in ${(afterKillMs / 1000).toFixed(1)} s after a SIGKILL`);
  await running.stop();
  return { afterCleanStopMs, afterKillMs };
}

/**
 * One database's run in `.tmp/<bench>/<database>`, emptied first: the sandbox and the app's configuration for
 * `measure`, and every process it starts stopped afterwards, also on failure.
 */
async function withRun<T>(
  bench: string,
  database: string,
  databaseUrl: string | undefined,
  settings: RunSettings,
  measure: (run: Run, dataDirMb: () => number) => Promise<T>,
): Promise<T> {
  const work = join(settings.root, ".tmp", bench, database.toLowerCase());
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true, mode: 0o700 });
  const dataDir = join(work, "data");
  const sandbox = await startSandbox();
  const env = {
    PARTNER_API_BASE_URL: "",
    SANDBOX_PORT: new URL(sandbox.url).port,
    DATABASE_URL: databaseUrl ?? "",
    DATA_DIR: dataDir,
    LOG_FILE: "",
    EMBED_ALLOWED_ORIGINS: "",
  };
  const run: Run = {
    app: { root: settings.root, port: await freePort(), env, logFile: join(work, "app.log"), upkeep: [] },
    sandbox: sandbox.url,
    settings,
    log: (message) => console.error(`  [${database}] ${message}`),
  };
  try {
    return await measure(run, () => directoryBytes(dataDir) / 1e6);
  } finally {
    await killEveryApp();
    await sandbox.close();
  }
}

/**
 * One database, from empty: the app started as `npm start` runs it, real sales through its API, the app stopped,
 * the sales multiplied as the app writes them, then the app started on that ledger, its pages timed through HTTP,
 * issue 34's API figures taken on it (the app stopped), and its starts timed after a clean stop and after a SIGKILL.
 */
export function measureDatabase(
  database: string,
  databaseUrl: string | undefined,
  settings: RunSettings,
): Promise<{ history: DatabaseFigures; api: ApiFigures }> {
  return withRun("bench-history", database, databaseUrl, settings, async (run, dataDirMb) => {
    const { made, imported } = await buildLedger(run);
    const afterImport = databaseUrl ? undefined : dataDirMb();
    const { agentId, deepSubmissionId, ...written } = imported;
    const workspace = await timeWorkspace(run, { protocol: made.probe!.protocol, agentId, deepSubmissionId });
    const api = await measureApi(run, database);
    const { afterCleanStopMs, afterKillMs } = await timeRestarts(run);
    const history: DatabaseFigures = {
      database,
      sales: settings.sales,
      realSales: made.statuses,
      import: written,
      ...(afterImport === undefined ? {} : { dataDirMb: { afterImport, atEnd: dataDirMb() } }),
      starts: {
        firstMs: workspace.firstMs,
        afterCleanStopMs,
        afterKillMs,
        cleanStopMs: workspace.cleanStopMs,
      },
      // Undefined on PGlite: JSON leaves it out.
      autovacuumSeconds: workspace.autovacuumSeconds,
      pages: workspace.pages,
      exported: workspace.exported,
      upkeep: summarize(run.app.upkeep, workspace.timing),
      loadAverage: loadavg()[0]!,
    };
    return { history, api };
  });
}

/**
 * Issue 34's figures alone (bench/api.ts): the ledger built as measureDatabase builds it, the app started on it once
 * and stopped (PGlite's upkeep runs before it is ready; PostgreSQL's autovacuum is waited for), then
 * bench/api-worker.ts.
 */
export function measureApiAlone(
  database: string,
  databaseUrl: string | undefined,
  settings: RunSettings,
): Promise<ApiFigures> {
  return withRun("bench-api", database, databaseUrl, settings, async (run) => {
    await buildLedger(run);
    const running = await startApp(run.app, "first start on the ledger");
    run.log(`ready in ${(running.readyMs / 1000).toFixed(1)} s on the new ledger`);
    if (databaseUrl) await waitForAutovacuum(databaseUrl, run.log);
    await running.stop();
    return measureApi(run, database);
  });
}
