import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const SOURCES = [
  "app",
  "components",
  "lib",
  "public",
  "auth.ts",
  "proxy.ts",
  "instrumentation.ts",
  "next.config.ts",
  "tailwind.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package-lock.json",
];
const STAMP = ".next/partner-sales-source-hash";

function* files(path: string): Generator<string> {
  if (!existsSync(path)) return;
  if (statSync(path).isFile()) {
    yield path;
    return;
  }
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (entry.name === "node_modules" || /\.test\.tsx?$/.test(entry.name)) continue;
    yield* files(join(path, entry.name));
  }
}

export function sourceHash(root: string, sources: readonly string[] = SOURCES): string {
  const hash = createHash("sha256");
  for (const source of sources) {
    for (const file of files(join(root, source))) {
      hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
    }
  }
  return hash.digest("hex");
}

/**
 * Builds the production app unless the last build was made from exactly these sources. `sources` and `nextBin`
 * let the benchmark build its framework-floor app (bench/floor) with the same Next.js.
 */
export function buildIfNeeded(
  root: string,
  {
    force = false,
    sources = SOURCES,
    nextBin = join(root, "node_modules/.bin/next"),
    label = "the app",
    buildArgs = [],
  }: {
    force?: boolean;
    sources?: readonly string[];
    nextBin?: string;
    label?: string;
    buildArgs?: string[];
  } = {},
): void {
  const hash = sourceHash(root, sources);
  const stampPath = join(root, STAMP);
  const upToDate =
    existsSync(join(root, ".next/BUILD_ID")) &&
    existsSync(stampPath) &&
    readFileSync(stampPath, "utf8") === hash;
  if (upToDate && !force) return;
  console.log(upToDate ? `Building ${label}…` : `Building ${label} (sources changed since the last build)…`);
  const result = spawnSync(nextBin, ["build", ...buildArgs], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) throw new Error(`next build failed (exit ${result.status ?? result.signal})`);
  writeFileSync(stampPath, hash);
}
