// The peak a calibration measured, from its readings of the engine's own counters: the rate at which processed
// tokens grew over the span in which requests were waiting (the engine had more work than it could take: a
// full batch), after a warm-up. The rate is the least-squares slope through every reading of the span, so a
// counter that moves in lumps (a long prompt counts when its prefill ends) does not swing it by where the
// span's two ends fall. The best short window is reported beside it; the sustained figure is what is stored.

export interface CalibrationReading {
  /** Ms since the load started (the reading's time). */
  at: number;
  /** Tokens processed since the first reading (computed prompt + generated). */
  processed: number;
  waiting: number | null;
  running: number | null;
}

export interface CalibrationSpan {
  /** Processed tokens per second over the saturated span. */
  tokensPerSecond: number;
  /** The highest rate over any window of at least `windowMs` inside the span. */
  bestWindowTokensPerSecond: number;
  /** Length of the saturated span, in seconds. */
  seconds: number;
  /** Readings in the span. */
  readings: number;
}

/** Null when fewer than two readings after the warm-up saw requests waiting. */
export function saturatedSpan(readings: readonly CalibrationReading[], warmupMs: number, windowMs = 5_000): CalibrationSpan | null {
  const saturated = readings.filter((reading) => reading.at >= warmupMs && (reading.waiting ?? 0) > 0);
  const first = saturated[0];
  const last = saturated.at(-1);
  if (first === undefined || last === undefined || last.at <= first.at) return null;
  // The span runs from the first to the last saturated reading; readings in between count even if one poll missed the queue.
  const span = readings.filter((reading) => reading.at >= first.at && reading.at <= last.at);
  let best = 0;
  for (let i = 0; i < span.length; i++) {
    const from = span[i] as CalibrationReading;
    const to = span.find((reading) => reading.at - from.at >= windowMs);
    if (to !== undefined) best = Math.max(best, ((to.processed - from.processed) * 1000) / (to.at - from.at));
  }
  const tokensPerSecond = slope(span) * 1000;
  return { tokensPerSecond, bestWindowTokensPerSecond: Math.max(best, tokensPerSecond), seconds: (last.at - first.at) / 1000, readings: span.length };
}

/** Least-squares slope of processed tokens over time (tokens per ms). */
function slope(points: readonly CalibrationReading[]): number {
  const meanAt = points.reduce((sum, point) => sum + point.at, 0) / points.length;
  const meanTokens = points.reduce((sum, point) => sum + point.processed, 0) / points.length;
  let covariance = 0;
  let variance = 0;
  for (const point of points) {
    covariance += (point.at - meanAt) * (point.processed - meanTokens);
    variance += (point.at - meanAt) ** 2;
  }
  return variance === 0 ? 0 : covariance / variance;
}
