// Percentiles over latency samples (nearest-rank on a sorted copy).

/** The p-th percentile (0 < p <= 100) by nearest rank; NaN for no samples. */
export function percentile(samples: ArrayLike<number>, p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** Median and 99th percentile. */
export function summarizeLatency(samples: ArrayLike<number>): { p50: number; p99: number } {
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}
