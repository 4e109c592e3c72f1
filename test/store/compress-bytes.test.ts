// Raw-bytes compression round-trips and falls back to storing incompressible bytes as is.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { compressBytes, decompressBytes } from '../../src/store/compress-bytes.js';

describe('compressBytes', () => {
  it.each([
    { name: 'empty', data: Buffer.alloc(0), tag: 0 },
    { name: 'random bytes (incompressible)', data: randomBytes(2000), tag: 0 },
    { name: 'repetitive JSON', data: Buffer.from(JSON.stringify({ messages: Array(200).fill({ role: 'user', content: 'hello' }) })), tag: 1 },
  ])('$name uses codec tag $tag and round-trips', ({ data, tag }) => {
    const blob = compressBytes(data);
    expect(blob[0]).toBe(tag);
    expect(blob.length).toBeLessThanOrEqual(data.length + 1);
    expect(Buffer.compare(decompressBytes(blob), data)).toBe(0);
  });

  it('compresses a repetitive JSON body at least 10x', () => {
    const data = Buffer.from(JSON.stringify({ messages: Array(200).fill({ role: 'user', content: 'hello' }) }));
    expect(compressBytes(data).length * 10).toBeLessThan(data.length);
  });

  it('round-trips arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (data) => {
        expect(Buffer.compare(decompressBytes(compressBytes(data)), Buffer.from(data))).toBe(0);
      }),
      { numRuns: 50 },
    );
  });

  it.each([
    { name: 'an unknown codec', blob: Buffer.from([7, 1, 2]) },
    { name: 'a corrupt brotli payload', blob: Buffer.from([1, 255, 255, 255, 255]) },
  ])('throws DataError for $name', ({ blob }) => {
    expect(() => decompressBytes(blob)).toThrow(DataError);
  });
});
