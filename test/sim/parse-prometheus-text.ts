// A strict reader of Prometheus text exposition (0.0.4) for tests: every sample must belong to a family
// declared by # HELP and # TYPE, counters end in _total, values are Go floats.

export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PrometheusText {
  types: Map<string, string>;
  samples: PrometheusSample[];
  /** The value of the one sample named `name` whose labels include `labels` (throws when not exactly one). */
  value(name: string, labels?: Record<string, string>): number;
  has(name: string): boolean;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN') return Number.NaN;
  if (!/^-?\d+(\.\d+)?(e[+-]\d+)?$/.test(text)) throw new Error(`not a Prometheus value: ${text}`);
  return Number(text);
}

export function parsePrometheusText(text: string): PrometheusText {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: PrometheusSample[] = [];
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      const [, kind, name, rest] = comment as unknown as [string, string, string, string];
      if (kind === 'HELP') helps.add(name);
      else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`bad TYPE line: ${line}`);
        if (types.has(name)) throw new Error(`family declared twice: ${name}`);
        if (rest === 'counter' && !name.endsWith('_total')) throw new Error(`counter without _total: ${name}`);
        types.set(name, rest);
      }
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const [, name, labelText, valueText] = match as unknown as [string, string, string | undefined, string];
    if (!types.has(name) || !helps.has(name)) throw new Error(`sample of an undeclared family: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (labelText ?? '').matchAll(LABEL)) labels[key as string] = (value as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name, labels, value: parseValue(valueText) });
  }
  return {
    types,
    samples,
    has: (name) => samples.some((s) => s.name === name),
    value(name, labels = {}) {
      const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
      if (found.length !== 1) throw new Error(`expected one ${name} ${JSON.stringify(labels)}, found ${found.length}`);
      return (found[0] as PrometheusSample).value;
    },
  };
}
