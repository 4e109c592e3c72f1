// Long synthetic prompts for a calibration load, made of token ids the engine itself produced (a seed
// answer's prompt and sampled ids): nothing is tokenized by polar. Each prompt walks the pool from its own
// start with its own stride, so no two share a first KV block and the prefix cache never serves them:
// every prompt token is computed, which is the load the ceiling is about.

/** Strides coprime with the pool size, 1 first. */
function strides(size: number): number[] {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const found: number[] = [];
  for (let stride = 1; stride < size && found.length < 64; stride++) if (gcd(stride, size) === 1) found.push(stride);
  return found.length === 0 ? [1] : found;
}

export class CalibrationPrompts {
  private readonly strides: number[];

  constructor(
    private readonly pool: readonly number[],
    private readonly length: number,
  ) {
    if (pool.length < 2) throw new Error('a calibration needs at least two seed token ids');
    this.strides = strides(pool.length);
  }

  /** The i-th prompt: `length` ids, pool[(start + k × stride) mod size], distinct (start, stride) per i. */
  prompt(index: number): number[] {
    const size = this.pool.length;
    const start = index % size;
    const stride = this.strides[Math.floor(index / size) % this.strides.length] as number;
    const ids = new Array<number>(this.length);
    for (let k = 0; k < this.length; k++) ids[k] = this.pool[(start + k * stride) % size] as number;
    return ids;
  }
}
