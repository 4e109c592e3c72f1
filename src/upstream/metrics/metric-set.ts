// The samples of one /metrics scrape, indexed by name, with the reductions the engine name maps need:
// an engine with several schedulers (vLLM data-parallel `engine` label, SGLang `dp_rank`/`tp_rank`) serves
// one series each, so counts are summed and fractions averaged over them.
import type { MetricSample, ParsedMetrics } from './parse-prometheus-text.js';

export type LabelFilter = Readonly<Record<string, string>>;

function matches(sample: MetricSample, where: LabelFilter | undefined): boolean {
  if (where === undefined) return true;
  for (const [key, value] of Object.entries(where)) if (sample.labels[key] !== value) return false;
  return true;
}

export class MetricSet {
  private readonly byName = new Map<string, MetricSample[]>();

  constructor(readonly parsed: ParsedMetrics) {
    for (const sample of parsed.samples) {
      const list = this.byName.get(sample.name);
      if (list === undefined) this.byName.set(sample.name, [sample]);
      else list.push(sample);
    }
  }

  /** True when at least one sample of `name` (matching `where`) was served. */
  has(name: string, where?: LabelFilter): boolean {
    return this.select(name, where).length > 0;
  }

  /** The finite samples of `name` matching `where`. */
  select(name: string, where?: LabelFilter): MetricSample[] {
    return (this.byName.get(name) ?? []).filter((sample) => Number.isFinite(sample.value) && matches(sample, where));
  }

  /** Sum over the matching series; null when none was served (absent is not zero). */
  sum(name: string, where?: LabelFilter): number | null {
    const samples = this.select(name, where);
    return samples.length === 0 ? null : samples.reduce((total, sample) => total + sample.value, 0);
  }

  /** Mean over the matching series (a fraction each scheduler reports for its own pool); null when none. */
  mean(name: string, where?: LabelFilter): number | null {
    const samples = this.select(name, where);
    return samples.length === 0 ? null : samples.reduce((total, sample) => total + sample.value, 0) / samples.length;
  }

  /** The first of several names that was served, summed. */
  sumFirst(names: readonly string[], where?: LabelFilter): number | null {
    for (const name of names) {
      const value = this.sum(name, where);
      if (value !== null) return value;
    }
    return null;
  }

  /** Number of distinct sample names. */
  get size(): number {
    return this.byName.size;
  }
}
