// Draws from a seeded uniform source: lognormal, weighted choice, resampling of recorded values.

export type Random = () => number;

/** Lognormal with the given median and log-space sigma (Box-Muller on two uniforms). */
export function drawLognormal(random: Random, median: number, sigma: number): number {
  const u = Math.max(random(), Number.MIN_VALUE);
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  return median * Math.exp(sigma * z);
}

/** A key drawn with probability proportional to its weight. */
export function drawWeighted<K extends string>(random: Random, weights: Readonly<Record<K, number>>): K {
  const entries = Object.entries(weights) as [K, number][];
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  let left = random() * total;
  for (const [key, weight] of entries) {
    left -= weight;
    if (left < 0) return key;
  }
  return entries[entries.length - 1]![0];
}

/** One of the recorded values, uniformly (the empirical distribution, tail included). */
export function drawRecorded<T>(random: Random, values: readonly T[]): T {
  if (values.length === 0) throw new Error('no recorded values to draw from');
  return values[Math.min(values.length - 1, Math.floor(random() * values.length))]!;
}
