// What `npm run bench` runs: a named benchmark that measures something and returns its table text.

export interface Benchmark {
  /** Shown as the section heading. */
  name: string;
  /** Runs the benchmark to the end and returns its markdown tables; throws when the measurement is invalid. */
  run(): Promise<string>;
}
