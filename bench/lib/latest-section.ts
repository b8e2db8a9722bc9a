import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Puts `section` (which starts with `start` and ends with `end`) in bench/results/latest.md: in its place, or last. */
export function writeLatestSection(
  root: string,
  section: string,
  { start, end }: { start: string; end: string },
) {
  const latestPath = join(root, "bench/results/latest.md");
  const latest = readFileSync(latestPath, "utf8");
  const from = latest.indexOf(start);
  const to = latest.indexOf(end);
  writeFileSync(
    latestPath,
    from >= 0 && to > from
      ? `${latest.slice(0, from)}${section}${latest.slice(to + end.length)}`
      : `${latest.trimEnd()}\n\n${section}\n`,
  );
}
