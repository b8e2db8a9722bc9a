import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildIfNeeded } from "./build-if-needed";
import { ensurePrograms } from "./debian-packages";
import { ensureBrowser } from "./ensure-browser";
import { startTestPostgres, type TestPostgres } from "./test-postgres";

const root = join(import.meta.dirname, "..");
const reports = join(root, ".reports");
const bin = (name: string) => join(root, "node_modules/.bin", name);

interface StepResult {
  name: string;
  passed: number;
  failed: number;
  skipped: number;
  note?: string;
}

const results: StepResult[] = [];

function heading(title: string) {
  console.log(`\n━━ ${title} ${"━".repeat(Math.max(0, 70 - title.length))}`);
}

function run(command: string, args: string[], env: Record<string, string> = {}): number {
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
  });
  return result.status ?? 1;
}

/** Lint, type-check and build are one check each in the total. */
function check(name: string, action: () => boolean) {
  heading(name);
  let ok = false;
  try {
    ok = action();
  } catch (error) {
    console.error((error as Error).message);
  }
  results.push({ name, passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0 });
}

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}

async function vitest() {
  heading("unit and integration tests (Vitest)");
  let postgres: TestPostgres | undefined;
  try {
    postgres = await startTestPostgres();
  } catch (error) {
    console.error((error as Error).message);
  }
  if (!postgres && process.env.CI) {
    results.push({ name: "vitest", passed: 0, failed: 1, skipped: 0, note: "CI needs PostgreSQL" });
    return;
  }
  const output = join(reports, "vitest.json");
  rmSync(output, { force: true });
  const stopPostgres = () => postgres?.stop();
  process.once("SIGINT", stopPostgres).once("SIGTERM", stopPostgres);
  const status = run(
    bin("vitest"),
    ["run", "--reporter=default", "--reporter=json", `--outputFile=${output}`],
    postgres ? { TEST_DATABASE_URL: postgres.url } : {},
  );
  postgres?.stop();
  const report = readJson<{ numPassedTests: number; numFailedTests: number; numPendingTests: number }>(
    output,
  );
  if (!report) {
    results.push({ name: "vitest", passed: 0, failed: 1, skipped: 0, note: `no report (exit ${status})` });
    return;
  }
  // A failing suite (e.g. an import error) has no failed test but a non-zero exit: count it.
  const failed = report.numFailedTests || (status === 0 ? 0 : 1);
  results.push({ name: "vitest", passed: report.numPassedTests, failed, skipped: report.numPendingTests });
}

function playwright() {
  heading("end-to-end tests (Playwright)");
  try {
    ensureBrowser();
  } catch (error) {
    console.error((error as Error).message);
    results.push({ name: "playwright", passed: 0, failed: 1, skipped: 0, note: "no browser" });
    return;
  }
  // The servers the deployment specs start themselves; under CI a spec whose server is missing fails.
  ensurePrograms(["prometheus", "nginx", "openssl"]);
  const output = join(reports, "playwright.json");
  rmSync(output, { force: true });
  rmSync(join(root, ".data/e2e"), { recursive: true, force: true });
  rmSync(join(root, ".data/e2e-logs"), { recursive: true, force: true });
  const status = run(bin("playwright"), ["test"], { PLAYWRIGHT_JSON_OUTPUT_NAME: output });
  const report = readJson<{
    stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  }>(output);
  if (!report) {
    results.push({
      name: "playwright",
      passed: 0,
      failed: 1,
      skipped: 0,
      note: `no report (exit ${status})`,
    });
    return;
  }
  const { expected, unexpected, flaky, skipped } = report.stats;
  const failed = unexpected || (status === 0 ? 0 : 1);
  results.push({ name: "playwright", passed: expected + flaky, failed, skipped });
}

mkdirSync(reports, { recursive: true });
check("lint (ESLint)", () => run(bin("eslint"), [".", "--max-warnings=0"]) === 0);
check("format (Prettier)", () => run(bin("prettier"), ["--check", "."]) === 0);
check("build (next build)", () => {
  buildIfNeeded(root);
  return existsSync(join(root, ".next/BUILD_ID"));
});
check("type-check (tsc)", () => run(bin("next"), ["typegen"]) === 0 && run(bin("tsc"), ["--noEmit"]) === 0);
await vitest();
playwright();

heading("summary");
for (const result of results) {
  const skipped = result.skipped ? `, ${result.skipped} skipped` : "";
  const note = result.note ? ` (${result.note})` : "";
  console.log(`  ${result.name}: ${result.passed} passed, ${result.failed} failed${skipped}${note}`);
}
const passed = results.reduce((sum, result) => sum + result.passed, 0);
const failed = results.reduce((sum, result) => sum + result.failed, 0);
const skipped = results.reduce((sum, result) => sum + result.skipped, 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed === 0 ? 0 : 1);
