// The engine's word on which weights sampled each token against the boundaries polar recorded at its keep
// pauses: agreement leaves the call as recorded, the scheduler's exact spans replace polar's boundaries (and can
// make an unobserved call trainable), per-chunk labels that disagree make the call's versions unknown.
import { describe, expect, it } from 'vitest';
import { reconcileEngineVersions } from '../../src/gateway/engine-reported-versions.js';
import type { EngineVersionsWire } from '../../src/upstream/vllm-api-types.js';

const run = (start: number, label: string): EngineVersionsWire['runs'][number] => ({ start, label, version: /^\d+$/.test(label) ? Number(label) : null });
const labels = (exact: boolean, ...runs: [number, string][]): EngineVersionsWire => ({ runs: runs.map(([start, label]) => run(start, label)), exact });

describe('reconcileEngineVersions', () => {
  it('agreement (the label changes where polar bounded the call) leaves the record as it was', () => {
    const call = { policyVersion: 0, versionBoundaries: [[6, 1]] as [number, number][] };
    expect(reconcileEngineVersions(call, labels(false, [0, '0'], [6, '1']), 10)).toEqual({ versionBoundaries: [[6, 1]], versionUnobserved: undefined });
    // Only positions are compared: a server's labels may be another run's (or "default").
    expect(reconcileEngineVersions(call, labels(false, [0, 'default'], [6, 'step-9']), 10)).toEqual({ versionBoundaries: [[6, 1]], versionUnobserved: undefined });
    // Frozen before its first token: all tokens new, no change inside the output.
    expect(reconcileEngineVersions({ policyVersion: 0, versionBoundaries: [[0, 1]] }, labels(false, [0, '1']), 10)).toEqual({ versionBoundaries: [[0, 1]], versionUnobserved: undefined });
    // No version change at all, on either side.
    expect(reconcileEngineVersions({ policyVersion: 3 }, labels(false, [0, '3']), 10)).toEqual({ versionBoundaries: undefined, versionUnobserved: undefined });
  });

  it('nothing usable reported (no report, no policy version, no tokens, runs not from token 0): unchanged', () => {
    const call = { policyVersion: 0, versionBoundaries: [[6, 1]] as [number, number][] };
    const unchanged = { versionBoundaries: [[6, 1]], versionUnobserved: undefined };
    expect(reconcileEngineVersions(call, null, 10)).toEqual(unchanged);
    expect(reconcileEngineVersions({ versionBoundaries: [[6, 1]] }, labels(false, [0, '0'], [2, '1']), 10)).toEqual(unchanged);
    expect(reconcileEngineVersions(call, labels(false, [0, '0'], [2, '1']), 0)).toEqual(unchanged);
    expect(reconcileEngineVersions(call, labels(true, [3, '1']), 10)).toEqual(unchanged);
  });

  it('per-chunk labels that change elsewhere than polar\'s boundary: versions unknown (engine-disagrees)', () => {
    expect(reconcileEngineVersions({ policyVersion: 0, versionBoundaries: [[6, 1]] }, labels(false, [0, '0'], [4, '1']), 10)).toEqual({ versionBoundaries: [[6, 1]], versionUnobserved: 'engine-disagrees' });
    // The weights changed behind polar's back (a trainer's own pause and update): polar saw no change.
    expect(reconcileEngineVersions({ policyVersion: 0 }, labels(false, [0, '0'], [4, '1']), 10)).toMatchObject({ versionUnobserved: 'engine-disagrees' });
    // A change after the last token is no change of this call.
    expect(reconcileEngineVersions({ policyVersion: 0, versionBoundaries: [[10, 1]] }, labels(false, [0, '0']), 10)).toEqual({ versionBoundaries: [[10, 1]], versionUnobserved: undefined });
  });

  it('the scheduler\'s exact spans replace polar\'s boundaries, and rescue a call polar could not bound', () => {
    expect(reconcileEngineVersions({ policyVersion: 0, versionBoundaries: [[6, 1]] }, labels(true, [0, '0'], [4, '1']), 10)).toEqual({ versionBoundaries: [[4, 1]], versionUnobserved: undefined });
    expect(reconcileEngineVersions({ policyVersion: 0, versionUnobserved: 'weights-changed-while-running' }, labels(true, [0, '0'], [3, '1'], [7, '2']), 10)).toEqual({ versionBoundaries: [[3, 1], [7, 2]], versionUnobserved: undefined });
    // The first span is the version the call was sent with, whatever its label (SGLang boots as "default").
    expect(reconcileEngineVersions({ policyVersion: 2, versionUnobserved: 'stream-interval' }, labels(true, [0, 'default'], [5, '3']), 10)).toEqual({ versionBoundaries: [[5, 3]], versionUnobserved: undefined });
    // A later span under a label polar did not write cannot be given a policy version: unknown.
    expect(reconcileEngineVersions({ policyVersion: 0, versionBoundaries: [[6, 1]] }, labels(true, [0, 'default'], [4, 'step-1']), 10)).toMatchObject({ versionUnobserved: 'engine-disagrees' });
    expect(reconcileEngineVersions({ policyVersion: 0, versionUnobserved: 'non-streaming-upstream' }, labels(false, [0, '0'], [3, '1']), 10)).toEqual({ versionBoundaries: undefined, versionUnobserved: 'non-streaming-upstream' });
  });
});
