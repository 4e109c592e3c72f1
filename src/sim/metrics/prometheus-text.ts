// Prometheus text exposition (format 0.0.4) as Python's prometheus_client writes it, which is what vLLM serves:
// counters as `<name>_total` plus a `<name>_created` gauge, labels sorted, values in Go float notation.

export interface MetricSample {
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  /** Without the `_total` suffix for counters (prometheus_client adds it). */
  name: string;
  type: 'counter' | 'gauge';
  help: string;
  samples: MetricSample[];
}

/** The content type prometheus_client answers /metrics with. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Python's repr() of a float. */
function pythonRepr(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${value}.0`;
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude < 1e-4 || magnitude >= 1e16)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  return String(value);
}

/** prometheus_client's floatToGoString: Go switches to exponents sooner than Python does. */
export function formatValue(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  if (Number.isNaN(value)) return 'NaN';
  const text = pythonRepr(value);
  const dot = text.indexOf('.');
  if (value > 0 && dot > 6) {
    const mantissa = `${text[0]}.${text.slice(1, dot)}${text.slice(dot + 1)}`.replace(/[0.]+$/, '');
    return `${mantissa}e+0${dot - 1}`;
  }
  return text;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function sampleLine(name: string, labels: Record<string, string>, value: number): string {
  const keys = Object.keys(labels).sort();
  const labelText = keys.length === 0 ? '' : `{${keys.map((key) => `${key}="${escapeLabel(labels[key] as string)}"`).join(',')}}`;
  return `${name}${labelText} ${formatValue(value)}\n`;
}

/** The exposition text; `createdSeconds` is the Unix time the counters started (their `_created` samples). */
export function renderPrometheus(families: readonly MetricFamily[], createdSeconds: number): string {
  let out = '';
  for (const family of families) {
    const name = family.type === 'counter' ? `${family.name}_total` : family.name;
    out += `# HELP ${name} ${escapeHelp(family.help)}\n# TYPE ${name} ${family.type}\n`;
    for (const sample of family.samples) out += sampleLine(name, sample.labels, sample.value);
    if (family.type !== 'counter') continue;
    out += `# HELP ${family.name}_created ${escapeHelp(family.help)}\n# TYPE ${family.name}_created gauge\n`;
    for (const sample of family.samples) out += sampleLine(`${family.name}_created`, sample.labels, createdSeconds);
  }
  return out;
}
