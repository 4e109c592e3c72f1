// JSONL lines: one record per line, no silent NaN, produced only when pulled.
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { toJsonlLine, toJsonlLines } from '../../src/export/to-jsonl-line.js';

describe('toJsonlLine', () => {
  it('writes one JSON line with a trailing newline', () => {
    expect(toJsonlLine({ a: [1, null], b: 'x\ny' })).toBe('{"a":[1,null],"b":"x\\ny"}\n');
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('rejects %s', (value) => {
    expect(() => toJsonlLine({ logprobs: [-0.1, value] })).toThrow(DataError);
  });
});

describe('toJsonlLines', () => {
  it('pulls one record per line, never ahead of the consumer', async () => {
    let produced = 0;
    function* records() {
      for (let i = 0; i < 3; i++) {
        produced++;
        yield { i };
      }
    }
    const lines = toJsonlLines(records());
    expect(produced).toBe(0);
    expect((await lines.next()).value).toBe('{"i":0}\n');
    expect(produced).toBe(1);
    const rest: string[] = [];
    for await (const line of lines) rest.push(line);
    expect(rest).toEqual(['{"i":1}\n', '{"i":2}\n']);
  });
});

describe('toJsonlLine errors', () => {
  it('names where the bad number is', () => {
    expect(() => toJsonlLine({ polar: { advantage: 1, rows: [{ logprobs: [0, Number.NaN] }] } })).toThrow('field "polar.rows[0].logprobs[1]"');
  });
});
