// Delta chains are walked back to a full copy or a known value, and cycles are caught.
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { type ChainLink, resolveChain } from '../../src/store/resolve-chain.js';

/** Links whose value is the base's value plus a suffix letter. */
function links(table: Record<number, { baseId: number | null; add: string }>) {
  const loaded: number[] = [];
  const load = (id: number): ChainLink<string> => {
    loaded.push(id);
    const entry = table[id];
    if (entry === undefined) throw new Error(`no link ${id}`);
    return { baseId: entry.baseId, apply: (base) => (base ?? '') + entry.add };
  };
  return { load, loaded };
}

describe('resolveChain', () => {
  const table = { 1: { baseId: null, add: 'a' }, 2: { baseId: 1, add: 'b' }, 3: { baseId: 2, add: 'c' }, 4: { baseId: null, add: 'x' }, 5: { baseId: 4, add: 'y' } };

  it.each([
    { id: 1, value: 'a', loaded: [1] },
    { id: 3, value: 'abc', loaded: [3, 2, 1] },
    { id: 5, value: 'xy', loaded: [5, 4] },
  ])('walks from $id back to a full copy', ({ id, value, loaded }) => {
    const chain = links(table);
    expect(resolveChain(id, chain.load)).toBe(value);
    expect(chain.loaded).toEqual(loaded);
  });

  it('stops at a known value instead of walking further', () => {
    const chain = links(table);
    expect(resolveChain(3, chain.load, new Map([[2, 'KNOWN']]))).toBe('KNOWNc');
    expect(chain.loaded).toEqual([3]);
  });

  it('detects a cycle', () => {
    const chain = links({ 1: { baseId: 2, add: 'a' }, 2: { baseId: 1, add: 'b' } });
    expect(() => resolveChain(1, chain.load)).toThrow(DataError);
  });
});
