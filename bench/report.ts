import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeReport, type BenchResults } from "./lib/report";

// `npx tsx bench/report.ts`: writes bench/results/latest.md again from latest.json, with the runs saved beside it
// (before-N.json, after-N.json) and bench/NOTES.md as they are now. Measures nothing.
const root = join(import.meta.dirname, "..");
const { targets: _targets, ...results } = JSON.parse(
  readFileSync(join(root, "bench/results/latest.json"), "utf8"),
) as BenchResults & { targets: unknown };
const { markdownPath } = writeReport(root, results);
console.log(`Wrote ${markdownPath}`);
