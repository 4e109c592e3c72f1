// The fidelity checker catches every kind of tampering with a built trajectory.
import { describe, expect, it } from 'vitest';
import { InternalError } from '../../src/errors.js';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';
import type { TrajectoryBuild } from '../../src/trajectory/trajectory-row.js';
import {
  assertTrajectoryFidelity,
  verifyTrajectory,
  type FidelityViolationKind,
} from '../../src/trajectory/verify-trajectory.js';

const E = 151645;
const base = { status: 'ok', finishReason: 'stop', response: null } as const;
const calls: TrajectoryCall[] = [
  { ...base, id: 1, seq: 0, promptTokenIds: [1, 2], tokenIds: [3, E], logprobs: [-0.1, -0.2], policyVersion: 1 },
  { ...base, id: 2, seq: 1, promptTokenIds: [1, 2, 3, E, 198, 4], tokenIds: [5, E], logprobs: [-0.3, -0.4], policyVersion: 1, tokenVersions: [1, 2] },
  { ...base, id: 3, seq: 2, status: 'upstream_error', promptTokenIds: null, tokenIds: null, logprobs: null },
];

const tamperings: [string, (build: TrajectoryBuild) => void, FidelityViolationKind][] = [
  ['a changed sampled token', (b) => void (b.rows[0]!.responseIds[0] = 9), 'sampled-mismatch'],
  ['a changed logprob', (b) => void (b.rows[0]!.logprobs[5] = -0.35), 'sampled-mismatch'],
  ['a changed interstitial token', (b) => void (b.rows[0]!.responseIds[2] = 197), 'context-drift'],
  ['a changed prompt token', (b) => void (b.rows[0]!.promptIds[0] = 0), 'context-drift'],
  ['a sampled token masked out', (b) => void ((b.rows[0]!.lossMask[0] = 0), (b.rows[0]!.logprobs[0] = null)), 'sampled-mismatch'],
  ['a logprob under mask 0', (b) => void (b.rows[0]!.logprobs[2] = 0), 'row-shape'],
  ['a truncated mask', (b) => void b.rows[0]!.lossMask.pop(), 'row-shape'],
  ['a dropped call', (b) => void ((b.turns = b.turns.slice(1)), (b.rows[0]!.callIds = [2])), 'call-missing'],
  ['a duplicated placement', (b) => void b.turns.push({ ...b.turns[0]! }), 'call-duplicated'],
  ['an untrainable call placed', (b) => void b.turns.push({ callId: 3, rowIndex: 0, responseOffset: 0, length: 2 }), 'untrainable-placed'],
  ['callIds out of order', (b) => void b.rows[0]!.callIds.reverse(), 'row-calls-mismatch'],
  ['a truncated versions array', (b) => void b.rows[0]!.versions!.pop(), 'row-shape'],
  ['a version under mask 0', (b) => void (b.rows[0]!.versions![2] = 1), 'row-shape'],
  ['-1 on a sampled token', (b) => void (b.rows[0]!.versions![0] = -1), 'row-shape'],
  ['a changed version of a sampled token', (b) => void (b.rows[0]!.versions![5] = 1), 'version-mismatch'],
  ['versions dropped though every call has them', (b) => void (b.rows[0]!.versions = null), 'version-mismatch'],
  ['an interstitial token marked trained', (b) => void ((b.rows[0]!.lossMask[2] = 1), (b.rows[0]!.logprobs[2] = -1)), 'row-calls-mismatch'],
];

describe('verifyTrajectory', () => {
  it('accepts a faithful build', () => {
    expect(verifyTrajectory(calls, buildPrefixMerging(1, calls))).toEqual([]);
  });

  it.each(tamperings)('detects %s', (_name, tamper, kind) => {
    const build = structuredClone(buildPrefixMerging(1, calls));
    tamper(build);
    expect(verifyTrajectory(calls, build).map((violation) => violation.kind)).toContain(kind);
    expect(() => assertTrajectoryFidelity(calls, build)).toThrow(InternalError);
  });
});
