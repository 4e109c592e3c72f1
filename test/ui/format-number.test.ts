import { describe, expect, it } from 'vitest';
import { formatDuration, formatNumber, formatPercent } from '../../src/ui/format-number.js';

describe('formatNumber', () => {
  it.each<[number, string]>([
    [0, '0.0'],
    [2.46, '2.5'],
    [99.94, '99.9'],
    [1234.4, '1,234'],
    [-150.6, '-151'],
    [Number.NaN, '-'],
    [Number.POSITIVE_INFINITY, '-'],
  ])('%d -> %s', (value, text) => {
    expect(formatNumber(value)).toBe(text);
  });
});

describe('formatPercent', () => {
  it.each<[number, string]>([
    [0, '0%'],
    [0.873, '87%'],
    [1, '100%'],
    [1.2, '100%'],
    [-0.1, '0%'],
    [Number.NaN, '-'],
  ])('%d -> %s', (value, text) => {
    expect(formatPercent(value)).toBe(text);
  });
});

describe('formatDuration', () => {
  it.each<[number, string]>([
    [850, '850 ms'],
    [12_340, '12.3 s'],
    [245_000, '4m 05s'],
    [7_380_000, '2h 03m'],
    [-1, '-'],
  ])('%d ms -> %s', (value, text) => {
    expect(formatDuration(value)).toBe(text);
  });
});
