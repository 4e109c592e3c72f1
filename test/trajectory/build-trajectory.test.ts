// Property tests: both builders keep every sampled token exactly, once, in the context the model saw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTrajectory } from '../../src/trajectory/build-trajectory.js';
import { checkTrainable } from '../../src/trajectory/check-trainable.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';
import {
  TRAJECTORY_BUILDERS,
  type TrajectoryBuild,
  type TrajectoryRow,
} from '../../src/trajectory/trajectory-row.js';
import { verifyTrajectory } from '../../src/trajectory/verify-trajectory.js';
import { sessionArbitrary } from './session-arbitrary.js';

const RUNS = { numRuns: 300 };

function trainableIds(calls: readonly TrajectoryCall[]): number[] {
  return calls.filter((call) => checkTrainable(call).trainable).map((call) => call.id);
}

/** Concatenation of the row's mask-1 tokens and logprobs. */
function trainedOf(row: TrajectoryRow): { ids: number[]; logprobs: (number | null)[] } {
  const ids: number[] = [];
  const logprobs: (number | null)[] = [];
  row.lossMask.forEach((bit, i) => {
    if (bit === 1) {
      ids.push(row.responseIds[i]!);
      logprobs.push(row.logprobs[i]!);
    }
  });
  return { ids, logprobs };
}

/**
 * Independent of the builder's own placements: for each call of a row, the row's context up to that call
 * must be the call's prompt exactly, and the call's sampled tokens must follow with mask 1.
 */
function checkRowAgainstPrompts(row: TrajectoryRow, byId: Map<number, TrajectoryCall>): void {
  for (const callId of row.callIds) {
    const call = byId.get(callId)!;
    const prompt = call.promptTokenIds!;
    const offset = prompt.length - row.promptIds.length;
    expect(offset).toBeGreaterThanOrEqual(0);
    expect([...row.promptIds, ...row.responseIds.slice(0, offset)]).toEqual(prompt);
    const span = row.responseIds.length >= offset + call.tokenIds!.length;
    expect(span).toBe(true);
    expect(row.responseIds.slice(offset, offset + call.tokenIds!.length)).toEqual(call.tokenIds);
    expect(row.logprobs.slice(offset, offset + call.tokenIds!.length)).toEqual(call.logprobs);
    expect(row.lossMask.slice(offset, offset + call.tokenIds!.length).every((bit) => bit === 1)).toBe(true);
    const versions = call.tokenVersions ?? (call.policyVersion == null ? null : call.tokenIds!.map(() => call.policyVersion!));
    if (row.versions !== null) expect(row.versions.slice(offset, offset + call.tokenIds!.length)).toEqual(versions);
  }
  // Versions: one per response token, -1 exactly where the mask is 0; none when a call of the row has none.
  const allVersioned = row.callIds.every((callId) => byId.get(callId)!.policyVersion != null || byId.get(callId)!.tokenVersions != null);
  expect(row.versions !== null).toBe(allVersioned);
  if (row.versions !== null) {
    expect(row.versions.length).toBe(row.responseIds.length);
    expect(row.versions.length).toBe(row.lossMask.length);
    row.lossMask.forEach((bit, i) => expect(row.versions![i] === -1).toBe(bit === 0));
  }
}

function checkCommonInvariants(calls: TrajectoryCall[], build: TrajectoryBuild): void {
  expect(verifyTrajectory(calls, build)).toEqual([]);
  const byId = new Map(calls.map((call) => [call.id, call]));
  const placed = build.rows.flatMap((row) => row.callIds);
  expect([...placed].sort((a, b) => a - b)).toEqual(trainableIds(calls));
  for (const row of build.rows) {
    expect(row.lossMask.length).toBe(row.responseIds.length);
    expect(row.logprobs.length).toBe(row.responseIds.length);
    row.lossMask.forEach((bit, i) => expect(bit === 0).toBe(row.logprobs[i] === null));
    const trained = trainedOf(row);
    expect(trained.ids).toEqual(row.callIds.flatMap((id) => byId.get(id)!.tokenIds!));
    expect(trained.logprobs).toEqual(row.callIds.flatMap((id) => byId.get(id)!.logprobs!));
    checkRowAgainstPrompts(row, byId);
  }
  const notTrainable = build.diagnostics.splits.filter((split) => split.reason.kind === 'not-trainable');
  expect(notTrainable.length).toBe(calls.length - trainableIds(calls).length);
  expect(build.diagnostics.trainableCalls).toBe(trainableIds(calls).length);
  expect(build.diagnostics.rows).toBe(build.rows.length);
  expect(build.diagnostics.tokensTrained).toBe(
    trainableIds(calls).reduce((sum, id) => sum + byId.get(id)!.tokenIds!.length, 0),
  );
}

describe.each(TRAJECTORY_BUILDERS)('%s on generated sessions', (builder) => {
  it('keeps every sampled token and logprob exactly once, in the context the model saw', () => {
    fc.assert(
      fc.property(sessionArbitrary, (calls) => {
        checkCommonInvariants(calls, buildTrajectory(builder, 1, calls));
      }),
      RUNS,
    );
  });

  it('does not depend on the order calls are passed in', () => {
    fc.assert(
      fc.property(sessionArbitrary, fc.nat(), (calls, seed) => {
        const shuffled = [...calls].sort((a, b) => ((a.id * 7919 + seed) % 101) - ((b.id * 7919 + seed) % 101));
        expect(buildTrajectory(builder, 1, shuffled).rows).toEqual(buildTrajectory(builder, 1, calls).rows);
      }),
      { numRuns: 100 },
    );
  });
});

describe('per_request vs prefix_merging', () => {
  it('per_request has one row per trainable call; prefix_merging never has more rows', () => {
    fc.assert(
      fc.property(sessionArbitrary, (calls) => {
        const perRequest = buildTrajectory('per_request', 1, calls);
        const merged = buildTrajectory('prefix_merging', 1, calls);
        expect(perRequest.rows.length).toBe(trainableIds(calls).length);
        expect(perRequest.rows.every((row) => row.callIds.length === 1 && row.lossMask.every((b) => b === 1))).toBe(
          true,
        );
        expect(merged.rows.length).toBeLessThanOrEqual(perRequest.rows.length);
      }),
      RUNS,
    );
  });

  it('prefix_merging diagnostics add up: one split per chain start, merged turns fill the rest, drift 0', () => {
    fc.assert(
      fc.property(sessionArbitrary, (calls) => {
        const { diagnostics, rows } = buildTrajectory('prefix_merging', 1, calls);
        const chainStarts = diagnostics.splits.filter((split) => split.reason.kind !== 'not-trainable');
        expect(chainStarts.length).toBe(rows.length);
        expect(diagnostics.chains).toBe(rows.length);
        expect(diagnostics.drift.mergedTurns).toBe(diagnostics.trainableCalls - rows.length);
        expect(diagnostics.drift.continuationsWithDrift).toBeGreaterThanOrEqual(0);
        const firstCalls = chainStarts.filter((split) => split.reason.kind === 'first-call');
        expect(firstCalls.length).toBe(rows.length > 0 ? 1 : 0);
        const masked = rows.reduce((sum, row) => sum + row.lossMask.filter((bit) => bit === 0).length, 0);
        expect(diagnostics.tokensMasked).toBe(masked);
      }),
      RUNS,
    );
  });

  it('merges whenever the generator only continues agents with EOS-terminated turns', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 0, maxLength: 4 }), { maxLength: 10 }),
        (interstitials) => {
          let context = [1, 2, 3];
          const calls: TrajectoryCall[] = interstitials.map((extra, seq) => {
            const prompt = [...context, ...extra];
            const tokenIds = [40 + seq, 151645];
            context = [...prompt, ...tokenIds];
            return {
              id: seq + 1,
              seq,
              status: 'ok',
              promptTokenIds: prompt,
              tokenIds,
              logprobs: [-0.5, -0.01],
              finishReason: 'stop',
              response: null,
            };
          });
          expect(buildTrajectory('prefix_merging', 1, calls).rows.length).toBe(calls.length > 0 ? 1 : 0);
        },
      ),
    );
  });
});
