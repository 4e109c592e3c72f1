// The dashboard's number formats, one table per formatter.
import { describe, expect, it } from 'vitest';
import { formatDuration, formatNumber, formatPercent } from '../../src/ui/format-number.js';

const TABLES: [name: string, format: (value: number) => string, cases: [number, string][]][] = [
  [
    'formatNumber',
    formatNumber,
    [
      [0, '0.0'],
      [2.46, '2.5'],
      [99.94, '99.9'],
      [1234.4, '1,234'],
      [-150.6, '-151'],
      [Number.NaN, '-'],
      [Number.POSITIVE_INFINITY, '-'],
    ],
  ],
  [
    'formatPercent',
    formatPercent,
    [
      [0, '0%'],
      [0.873, '87%'],
      [1, '100%'],
      [1.2, '100%'],
      [-0.1, '0%'],
      [Number.NaN, '-'],
    ],
  ],
  [
    'formatDuration',
    formatDuration,
    [
      [850, '850 ms'],
      [12_340, '12.3 s'],
      [245_000, '4m 05s'],
      [7_380_000, '2h 03m'],
      [-1, '-'],
    ],
  ],
];

describe.each(TABLES)('%s', (_name, format, cases) => {
  it.each(cases)('%d -> %s', (value, text) => {
    expect(format(value)).toBe(text);
  });
});
