/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export interface LatencySummary {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  requestsPerSecond: number;
}

export function summarize(latenciesMs: readonly number[], durationMs: number): LatencySummary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    requestsPerSecond: durationMs > 0 ? (sorted.length * 1000) / durationMs : Number.NaN,
  };
}
