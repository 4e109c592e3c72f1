// per_request: one row per trainable call, nothing merged.
import { describe, expect, it } from 'vitest';
import { buildPerRequest } from '../../src/trajectory/build-per-request.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';

const base = { finishReason: 'stop', response: null } as const;
const calls: TrajectoryCall[] = [
  { ...base, id: 12, seq: 2, status: 'ok', promptTokenIds: [1, 2, 5, 6], tokenIds: [7, 151645], logprobs: [-1, -2] },
  { ...base, id: 10, seq: 0, status: 'ok', promptTokenIds: [1, 2], tokenIds: [5, 151645], logprobs: [-0.5, -0.25] },
  { ...base, id: 11, seq: 1, status: 'context_overflow', promptTokenIds: null, tokenIds: null, logprobs: null },
];

describe('buildPerRequest', () => {
  it('emits one row per trainable call in seq order and reports the rest', () => {
    const build = buildPerRequest(3, calls);
    expect(build.rows).toEqual([
      {
        sessionId: 3,
        rowIndex: 0,
        callIds: [10],
        promptIds: [1, 2],
        responseIds: [5, 151645],
        lossMask: [1, 1],
        logprobs: [-0.5, -0.25],
        versions: null,
        builder: 'per_request',
      },
      {
        sessionId: 3,
        rowIndex: 1,
        callIds: [12],
        promptIds: [1, 2, 5, 6],
        responseIds: [7, 151645],
        lossMask: [1, 1],
        logprobs: [-1, -2],
        versions: null,
        builder: 'per_request',
      },
    ]);
    expect(build.diagnostics).toMatchObject({
      calls: 3,
      trainableCalls: 2,
      chains: 2,
      rows: 2,
      tokensTrained: 4,
      tokensMasked: 0,
      promptTokens: 6,
      splits: [{ callId: 11, seq: 1, reason: { kind: 'not-trainable', status: 'context_overflow', detail: 'status' } }],
    });
  });

  it("carries each sampled token's policy version: the call's, or its per-token versions", () => {
    const versioned: TrajectoryCall[] = [
      { ...calls[1]!, policyVersion: 3 },
      { ...calls[0]!, policyVersion: 3, tokenVersions: [3, 4] },
    ];
    expect(buildPerRequest(3, versioned).rows.map((row) => row.versions)).toEqual([
      [3, 3],
      [3, 4],
    ]);
  });

  it('copies token arrays so later edits to the rows cannot change the captured calls', () => {
    const build = buildPerRequest(3, calls);
    build.rows[0]!.promptIds.push(99);
    expect(calls[1]!.promptTokenIds).toEqual([1, 2]);
  });
});
