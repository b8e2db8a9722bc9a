// V8 sizes its heap from the machine's memory and collects lazily, so on a large machine the app server's RSS
// climbs far above what it uses: its live heap stays near 80 MB under 50 concurrent sales (bench/). Old space is
// capped at twice that unless NODE_OPTIONS already sets a size.
export const APP_OLD_SPACE_MB = 160;

export function appNodeOptions(current: string | undefined): string {
  if (current && /--max[-_]old[-_]space[-_]size/.test(current)) return current;
  return `${current ?? ""} --max-old-space-size=${APP_OLD_SPACE_MB}`.trim();
}
