// Prometheus text exposition (format 0.0.4, and the OpenMetrics lines real servers mix in) into samples:
// counters, gauges, histogram and summary series (`_sum`, `_count`, `_bucket`) as plain named samples.
// Tolerant of what Python's prometheus_client (vLLM, SGLang) and other exporters write: escaped label
// values, trailing commas, `+Inf`/`NaN`, timestamps, exemplars, `# EOF`, CRLF. A line it cannot read is
// counted in `skipped`, never fatal: one odd series must not hide the rest of an engine's metrics.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped' | 'gaugehistogram' | 'info' | 'stateset' | 'unknown';

export interface MetricSample {
  /** The sample's own name, e.g. `vllm:prompt_tokens_total` or `…_seconds_sum`. */
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface ParsedMetrics {
  samples: MetricSample[];
  /** `# TYPE` of each family, by family name (a counter's family may be named with or without `_total`). */
  types: ReadonlyMap<string, MetricType>;
  /** Lines that were neither comments nor readable samples. */
  skipped: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

function parseValue(text: string): number | undefined {
  switch (text) {
    case '+Inf':
    case 'Inf':
    case '+inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
    case '-inf':
      return Number.NEGATIVE_INFINITY;
    case 'NaN':
    case 'nan':
      return Number.NaN;
    default: {
      if (text === '' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
      return Number(text);
    }
  }
}

/** Reads `{a="1",b="x\"y"}` from `line` at `start` (the `{`); returns the labels and the index after `}`. */
function parseLabels(line: string, start: number): { labels: Record<string, string>; end: number } | undefined {
  const labels: Record<string, string> = {};
  let i = start + 1;
  for (;;) {
    while (line[i] === ' ' || line[i] === ',') i++;
    if (line[i] === '}') return { labels, end: i + 1 };
    const name = NAME.exec(line.slice(i))?.[0];
    if (name === undefined) return undefined;
    i += name.length;
    while (line[i] === ' ') i++;
    if (line[i] !== '=') return undefined;
    i++;
    while (line[i] === ' ') i++;
    if (line[i] !== '"') return undefined;
    i++;
    let value = '';
    for (;;) {
      const char = line[i];
      if (char === undefined) return undefined;
      if (char === '"') break;
      if (char === '\\') {
        const next = line[i + 1];
        value += next === 'n' ? '\n' : next === undefined ? '' : next;
        i += 2;
        continue;
      }
      value += char;
      i++;
    }
    labels[name] = value;
    i++;
  }
}

function parseSample(line: string): MetricSample | undefined {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) return undefined;
  let i = name.length;
  while (line[i] === ' ' || line[i] === '\t') i++;
  let labels: Record<string, string> = {};
  if (line[i] === '{') {
    const parsed = parseLabels(line, i);
    if (parsed === undefined) return undefined;
    labels = parsed.labels;
    i = parsed.end;
  }
  // The value, then an optional timestamp and (OpenMetrics) an exemplar after ` # `.
  const rest = line.slice(i).split(' # ')[0]?.trim() ?? '';
  const value = parseValue(rest.split(/\s+/)[0] ?? '');
  return value === undefined ? undefined : { name, labels, value };
}

export function parsePrometheusText(text: string): ParsedMetrics {
  const samples: MetricSample[] = [];
  const types = new Map<string, MetricType>();
  let skipped = 0;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1).trim() : raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^#\s*TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (type) types.set(type[1] as string, (type[2] as string).toLowerCase() as MetricType);
      continue;
    }
    const sample = parseSample(line);
    if (sample === undefined) skipped++;
    else samples.push(sample);
  }
  return { samples, types, skipped };
}
