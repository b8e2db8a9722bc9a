import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startOtlpReceiver, type ReceivedSpan } from "../e2e/support/otlp-receiver";
import { buildIfNeeded } from "../scripts/build-if-needed";
import { startSandbox } from "../sandbox/test-support";
import { databaseCounts, signIn } from "./lib/app-client";
import { startApp, type RunningApp } from "./lib/app-server";
import { onEachDatabase } from "./lib/each-database";
import { runLoad } from "./lib/load";
import { freePort } from "./lib/processes";
import { appSale } from "./lib/sales";
import { median } from "./lib/stats";

// `npm run bench:profile`: where one sale's server time goes (issue 37), on each database, written to
// bench/results/profile.md (bench/NOTES.md reads it). Two passes of POST /api/sales through the app as `npm start`
// runs it, each on a fresh app and database:
// - CPU: BENCH_PROFILE_SALES (default 3,000) sales at concurrency 50 under V8's sampling profiler (--cpu-prof), the
//   samples taken while the load ran grouped by where the code lives, per sale; with the database round trips per
//   sale from the app's own counter (`partner_sales_db_round_trips_total`).
// - Steps: 500 sales at concurrency 1 with tracing on (an OTLP receiver in this process), the median time of each
//   span of the sale's trace: session check, validation, ledger writes, token, provider call, outcome.
// Tracing and the profiler both cost time of their own: the figures say where time goes, `npm run bench` how much.
const root = join(import.meta.dirname, "..");
const SALES = Number(process.env.BENCH_PROFILE_SALES ?? 3_000);
const STEP_SALES = 500;
const DEMO_AGENT = { email: "agente@demo.local", password: "demo1234" };
const METRICS_TOKEN = randomUUID();

interface CpuFigures {
  sales: number;
  salesPerSecond: number;
  roundTripsPerSale: number;
  /** Where the app's main thread spent its samples while the load ran, in ms per sale. */
  msPerSale: { where: string; ms: number }[];
  idleShare: number;
  /** The functions that took the most samples themselves (name, tab, script), in ms per sale. */
  topFunctions: { name: string; ms: number }[];
}

interface StepFigures {
  sales: number;
  /** The median duration of each span of a sale's trace, in the order the sale takes them. */
  steps: { name: string; parent: string | null; medianMs: number; count: number }[];
}

interface DatabaseProfile {
  database: string;
  cpu: CpuFigures;
  steps: StepFigures;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The part of the server a sampled function belongs to, by its script's URL. */
function whereOf({ functionName, url }: ProfileNode["callFrame"]): string {
  if (functionName === "(idle)") return "idle";
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(program)" || functionName === "(root)") return "V8 and native code (not attributed)";
  if (url.startsWith("wasm://") || url.includes("@electric-sql/pglite")) return "embedded database (PGlite)";
  if (url.startsWith("node:zlib")) return "compression (zlib)";
  if (/^node:(_http|http|net|stream|internal\/(streams|http|net))/.test(url))
    return "Node's HTTP, net and streams";
  if (url.startsWith("node:")) return "other Node internals";
  if (url.includes("node_modules/pg")) return "PostgreSQL driver (pg)";
  if (url.includes("node_modules/next/")) return "Next.js";
  if (url.includes("/.next/server/")) return "the app's server bundle (our code, Drizzle, zod, Auth.js…)";
  if (url.includes("node_modules/")) return "other packages";
  if (url === "") return "V8 and native code (not attributed)";
  return "other scripts";
}

/**
 * Each profile sample between `fromUs` and `toUs`: its time by where it ran, and by function (name and script).
 * V8's profile and this process's process.hrtime both read the machine's monotonic clock (CLOCK_MONOTONIC), so
 * the app's samples can be cut to this process's load window.
 */
function samplesOf(profile: CpuProfile, fromUs: number, toUs: number) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byPlace = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length; index++) {
    at += profile.timeDeltas[index]!;
    const next = index + 1 < profile.timeDeltas.length ? profile.timeDeltas[index + 1]! : 0;
    if (at < fromUs || at > toUs) continue;
    const { callFrame } = nodes.get(profile.samples[index]!)!;
    const where = whereOf(callFrame);
    byPlace.set(where, (byPlace.get(where) ?? 0) + next);
    if (where === "idle") continue;
    const script = callFrame.url.replace(/^.*node_modules\//, "").replace(/^.*\/\.next\//, ".next/");
    const position =
      script && callFrame.lineNumber >= 0 ? `:${callFrame.lineNumber + 1}:${callFrame.columnNumber + 1}` : "";
    const name = `${callFrame.functionName || "(anonymous)"}\t${script}${position}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + next);
  }
  return { byPlace, byFunction };
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

async function withApp<T>(
  dir: string,
  name: string,
  { env, nodeArgs }: { env: Record<string, string>; nodeArgs?: string[] },
  work: (app: RunningApp) => Promise<T>,
): Promise<T> {
  const app = await startApp(
    {
      root,
      port: await freePort(),
      env: {
        METRICS_TOKEN,
        LOG_FILE: "",
        EMBED_ALLOWED_ORIGINS: "",
        ...env,
        DATA_DIR: join(dir, `data-${name}`),
      },
      logFile: join(dir, `${name}.log`),
      upkeep: [],
      nodeArgs,
    },
    name,
  );
  try {
    return await work(app);
  } finally {
    await app.stop();
  }
}

async function profileCpu(work: string, env: Record<string, string>): Promise<CpuFigures> {
  const profiles = join(work, "cpu");
  mkdirSync(profiles, { recursive: true });
  let window = { from: 0, to: 0 };
  let pid = 0;
  const measured = await withApp(
    work,
    "cpu",
    { env, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profiles}`, "--cpu-prof-interval=250"] },
    async (app) => {
      pid = app.pid;
      const target = appSale(
        "app",
        app.origin,
        await signIn(app.origin, DEMO_AGENT.email, DEMO_AGENT.password),
      );
      await runLoad(target, { concurrency: 50, requests: 500 });
      const before = await databaseCounts(app.origin, METRICS_TOKEN);
      window = { from: nowUs(), to: 0 };
      const result = await runLoad(target, { concurrency: 50, requests: SALES, warmUp: 0 });
      window.to = nowUs();
      const after = await databaseCounts(app.origin, METRICS_TOKEN);
      if (result.errors.length > 0)
        throw new Error(`Wrong answers under load: ${JSON.stringify(result.errors)}`);
      return {
        sales: after.sales - before.sales,
        salesPerSecond: (SALES * 1000) / result.durationMs,
        roundTripsPerSale: (after.roundTrips - before.roundTrips) / (after.sales - before.sales),
      };
    },
  );
  const file = readdirSync(profiles).find((name) => name.includes(`.${pid}.`));
  if (!file) throw new Error(`No CPU profile of the app (pid ${pid}) in ${profiles}.`);
  const { byPlace, byFunction } = samplesOf(
    JSON.parse(readFileSync(join(profiles, file), "utf8")),
    window.from,
    window.to,
  );
  const total = [...byPlace.values()].reduce((sum, us) => sum + us, 0);
  if (total === 0) throw new Error(`No sample of ${file} falls in the load's window: the clocks disagree.`);
  const idle = byPlace.get("idle") ?? 0;
  byPlace.delete("idle");
  return {
    ...measured,
    msPerSale: [...byPlace]
      .map(([where, us]) => ({ where, ms: us / 1000 / measured.sales }))
      .sort((a, b) => b.ms - a.ms),
    idleShare: idle / total,
    topFunctions: [...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([name, us]) => ({ name, ms: us / 1000 / measured.sales })),
  };
}

async function profileSteps(work: string, env: Record<string, string>): Promise<StepFigures> {
  const receiver = await startOtlpReceiver();
  try {
    await withApp(
      work,
      "steps",
      {
        env: {
          ...env,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_BSP_MAX_QUEUE_SIZE: "100000",
          OTEL_BSP_SCHEDULE_DELAY: "200",
        },
      },
      async (app) => {
        const target = appSale(
          "app",
          app.origin,
          await signIn(app.origin, DEMO_AGENT.email, DEMO_AGENT.password),
        );
        await runLoad(target, { concurrency: 1, requests: 100 });
        const result = await runLoad(target, { concurrency: 1, requests: STEP_SALES, warmUp: 0 });
        if (result.errors.length > 0) throw new Error(`Wrong answers: ${JSON.stringify(result.errors)}`);
      },
    );
    return stepsOf(receiver.spans());
  } finally {
    await receiver.close();
  }
}

/** The spans of the last STEP_SALES sales' traces, each name's median, in the order of a sale's first trace. */
function stepsOf(spans: ReceivedSpan[]): StepFigures {
  const byTrace = new Map<string, ReceivedSpan[]>();
  for (const span of spans) byTrace.set(span.traceId, [...(byTrace.get(span.traceId) ?? []), span]);
  const sales = [...byTrace.values()].filter((trace) => trace.some((span) => span.name === "sale.submit"));
  const measured = sales.slice(-STEP_SALES);
  const durations = new Map<string, { parent: string | null; ms: number[] }>();
  for (const trace of measured) {
    const names = new Map(trace.map((span) => [span.spanId, span.name]));
    for (const span of trace) {
      const entry = durations.get(span.name) ?? { parent: null, ms: [] };
      entry.parent = span.parentSpanId ? (names.get(span.parentSpanId) ?? null) : null;
      entry.ms.push(span.durationMs);
      durations.set(span.name, entry);
    }
  }
  return {
    sales: measured.length,
    steps: [...durations].map(([name, { parent, ms }]) => ({
      name,
      parent,
      medianMs: median(ms),
      count: ms.length,
    })),
  };
}

function markdown(profiles: DatabaseProfile[]): string {
  const lines = [
    "# Where a sale's server time goes",
    "",
    `Written by \`npm run bench:profile\` on ${new Date().toISOString()}. See bench/NOTES.md for how to read it.`,
    "",
  ];
  for (const { database, cpu, steps } of profiles) {
    lines.push(
      `## ${database}`,
      "",
      `CPU: ${cpu.sales} sales at concurrency 50 under the profiler, ${cpu.salesPerSecond.toFixed(0)} sales/s, ` +
        `${cpu.roundTripsPerSale.toFixed(2)} database round trips per sale, the main thread idle ` +
        `${(cpu.idleShare * 100).toFixed(0)}% of the time.`,
      "",
      "| where the main thread was | ms per sale |",
      "| --- | --- |",
      ...cpu.msPerSale.map((row) => `| ${row.where} | ${row.ms.toFixed(3)} |`),
      `| **total** | **${cpu.msPerSale.reduce((sum, row) => sum + row.ms, 0).toFixed(3)}** |`,
      "",
      "The functions that took the most samples themselves:",
      "",
      "| function | script | ms per sale |",
      "| --- | --- | --- |",
      ...cpu.topFunctions.map((row) => {
        const [name, script] = row.name.split("\t");
        return `| \`${name}\` | ${script ? `\`${script}\`` : "–"} | ${row.ms.toFixed(3)} |`;
      }),
      "",
      `Steps: the median of each span over ${steps.sales} sales at concurrency 1, tracing on.`,
      "",
      "| span | inside | median |",
      "| --- | --- | --- |",
      ...steps.steps.map(
        (row) =>
          `| \`${row.name}\` | ${row.parent ? `\`${row.parent}\`` : "–"} | ${row.medianMs.toFixed(3)} ms |`,
      ),
      "",
    );
  }
  return lines.join("\n");
}

async function main() {
  buildIfNeeded(root);
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const work = mkdtempSync(join(root, ".tmp/profile-"));
  const sandbox = await startSandbox();
  const profiles: DatabaseProfile[] = [];
  try {
    await onEachDatabase(
      async (database, databaseUrl) => {
        const env = {
          PARTNER_API_BASE_URL: "",
          SANDBOX_PORT: new URL(sandbox.url).port,
          DATABASE_URL: databaseUrl ?? "",
        };
        console.log(`\n▸ ${database}: CPU profile at concurrency 50`);
        const cpu = await profileCpu(join(work, database), env);
        console.log(`▸ ${database}: steps at concurrency 1, tracing on`);
        const steps = await profileSteps(join(work, database), env);
        profiles.push({ database, cpu, steps });
      },
      () => {
        const file = join(root, "bench/results/profile.md");
        writeFileSync(file, markdown(profiles));
        console.log(`Wrote ${file}`);
      },
    );
    // Kept after a failure: the app's log and profile say what went wrong.
    rmSync(work, { recursive: true, force: true });
  } finally {
    await sandbox.close();
  }
}

await main();
