// Markdown tables: aligned columns, numbers right-aligned, text left-aligned.
import { describe, expect, it } from 'vitest';
import { formatNumber, markdownTable } from './markdown-table.js';

describe('markdownTable', () => {
  it('pads columns and right-aligns numeric ones', () => {
    const table = markdownTable(['name', 'ms', 'ratio'], [
      ['direct', 0.5, '1.00x'],
      ['polar gateway', 12.25, 'n/a'],
    ]);
    expect(table.split('\n')).toEqual([
      '| name          |    ms | ratio |',
      '|---------------|------:|------:|',
      '| direct        |   0.5 | 1.00x |',
      '| polar gateway | 12.25 |   n/a |',
    ]);
  });

  it('keeps a header-only table valid', () => {
    expect(markdownTable(['a'], [])).toBe('| a   |\n|-----|');
  });
});

describe('formatNumber', () => {
  it.each([
    { value: 1.005, decimals: 1, expected: '1.0' },
    { value: -0.125, decimals: 2, expected: '-0.13' },
    { value: Number.NaN, decimals: 2, expected: 'n/a' },
    { value: Number.POSITIVE_INFINITY, decimals: 2, expected: 'n/a' },
  ])('$value with $decimals decimals is $expected', ({ value, decimals, expected }) => {
    expect(formatNumber(value, decimals)).toBe(expected);
  });
});
