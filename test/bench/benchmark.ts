// What `npm run bench` runs: a named benchmark that measures something and returns its table text.

export interface Benchmark {
  /** Shown as the section heading. */
  name: string;
  /**
   * Left out of the default set; run only when a word given to `npm run bench` is exactly this (e.g. a benchmark
   * that needs Docker images and minutes of real time).
   */
  optIn?: string;
  /** Runs the benchmark to the end and returns its markdown tables; throws when the measurement is invalid. */
  run(): Promise<string>;
}
