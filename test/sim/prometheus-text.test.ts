// The Prometheus text writer: prometheus_client's value notation, counters with _total and _created, label order.
import { describe, expect, it } from 'vitest';
import { formatValue, renderPrometheus } from '../../src/sim/metrics/prometheus-text.js';
import { parsePrometheusText } from './parse-prometheus-text.js';

describe('Prometheus text', () => {
  it('writes values as prometheus_client does (Python repr, Go exponents past 6 integer digits)', () => {
    expect(formatValue(0)).toBe('0.0');
    expect(formatValue(123)).toBe('123.0');
    expect(formatValue(0.25)).toBe('0.25');
    expect(formatValue(1e-5)).toBe('1e-05');
    expect(formatValue(1234567)).toBe('1.234567e+06');
    expect(formatValue(1.7e9)).toBe('1.7e+09');
    expect(formatValue(Number.POSITIVE_INFINITY)).toBe('+Inf');
    expect(formatValue(Number.NaN)).toBe('NaN');
  });

  it('renders counters as _total plus a _created gauge, labels sorted and escaped', () => {
    const text = renderPrometheus(
      [
        { name: 'vllm:prompt_tokens', type: 'counter', help: 'Number of prefill tokens processed.', samples: [{ labels: { model_name: 'm "q"', engine: '0' }, value: 12 }] },
        { name: 'vllm:num_requests_running', type: 'gauge', help: 'Running.', samples: [{ labels: { model_name: 'm', engine: '0' }, value: 2 }] },
      ],
      1_700_000_000,
    );
    expect(text).toBe(
      [
        '# HELP vllm:prompt_tokens_total Number of prefill tokens processed.',
        '# TYPE vllm:prompt_tokens_total counter',
        'vllm:prompt_tokens_total{engine="0",model_name="m \\"q\\""} 12.0',
        '# HELP vllm:prompt_tokens_created Number of prefill tokens processed.',
        '# TYPE vllm:prompt_tokens_created gauge',
        'vllm:prompt_tokens_created{engine="0",model_name="m \\"q\\""} 1.7e+09',
        '# HELP vllm:num_requests_running Running.',
        '# TYPE vllm:num_requests_running gauge',
        'vllm:num_requests_running{engine="0",model_name="m"} 2.0',
        '',
      ].join('\n'),
    );
    expect(parsePrometheusText(text).value('vllm:prompt_tokens_total', { model_name: 'm "q"' })).toBe(12);
  });
});
