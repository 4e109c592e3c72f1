// choosePrior: the recent call whose prompt + sampled ids share the longest prefix with the new prompt.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { choosePrior, type RecentCall } from '../../src/store/choose-prior.js';
import { commonPrefixLength } from '../../src/store/token-delta.js';

/** The rule written plainly: every eligible candidate compared in full, the most recent on ties. */
function reference(recent: readonly RecentCall[], prompt: readonly number[] | null): RecentCall | undefined {
  const latest = recent.at(-1);
  if (prompt === null || latest === undefined) return latest;
  let best = latest;
  let bestShared = latest.promptBase === null ? -1 : commonPrefixLength(latest.promptBase, prompt);
  for (let i = recent.length - 2; i >= 0; i--) {
    const base = recent[i]!.promptBase;
    const shared = base === null ? -1 : commonPrefixLength(base, prompt);
    if (shared > bestShared) {
      best = recent[i]!;
      bestShared = shared;
    }
  }
  return best;
}

function call(id: number, base: number[] | null): RecentCall {
  return { id, seq: id, promptBase: base === null ? null : Uint32Array.from(base), clientRequest: Buffer.alloc(0), upstreamRequest: null };
}

// Small alphabets and lengths, so prefixes of every length (0, partial, whole, longer than the prompt) occur.
const ids = fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 8 });

describe('choosePrior', () => {
  it('picks what comparing every candidate in full picks, for any candidates and prompt', () => {
    fc.assert(
      fc.property(fc.array(fc.option(ids, { nil: null }), { minLength: 1, maxLength: 8 }), fc.option(ids, { nil: null }), (bases, prompt) => {
        const recent = bases.map((base, index) => call(index + 1, base));
        // seq 1..8 are after the first checkpoint (0), so every candidate is eligible.
        const choice = choosePrior(recent, prompt, 9);
        const expected = reference(recent, prompt);
        expect(choice?.call.id).toBe(expected?.id);
        // The shared length handed to the delta is the real one (null only when nothing was compared).
        const base = choice?.call.promptBase ?? null;
        expect(choice?.sharedLen).toBe(prompt === null || base === null ? null : commonPrefixLength(base, prompt));
      }),
      { seed: 42, numRuns: 3000 },
    );
  });

  it('finds the main lineage behind a more recent side call, and prefers the most recent on ties', () => {
    const main = [5, 6, 7, 8];
    const recent = [call(1, [5, 6]), call(2, main), call(3, [9, 9, 9])];
    expect(choosePrior(recent, [...main, 4], 9)?.call.id).toBe(2);
    expect(choosePrior([call(1, main), call(2, main)], [...main, 4], 9)?.call.id).toBe(2);
  });
});
