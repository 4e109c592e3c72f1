// JSONL lines: one record per line, no silent NaN.
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { toJsonlLine } from '../../src/export/to-jsonl-line.js';

describe('toJsonlLine', () => {
  it('writes one JSON line with a trailing newline', () => {
    expect(toJsonlLine({ a: [1, null], b: 'x\ny' })).toBe('{"a":[1,null],"b":"x\\ny"}\n');
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('rejects %s', (value) => {
    expect(() => toJsonlLine({ logprobs: [-0.1, value] })).toThrow(DataError);
  });
});

describe('toJsonlLine errors', () => {
  it('names where the bad number is', () => {
    expect(() => toJsonlLine({ polar: { advantage: 1, rows: [{ logprobs: [0, Number.NaN] }] } })).toThrow('field "polar.rows[0].logprobs[1]"');
  });
});
