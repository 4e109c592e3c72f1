// GRPO group advantages checked against hand-computed groups.
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import {
  computeAdvantages,
  type AdvantageInput,
  type AdvantageOptions,
} from '../../src/trajectory/compute-advantages.js';

function group(rewards: (number | null)[], groupId = 'task-a', firstId = 1): AdvantageInput[] {
  return rewards.map((reward, i) => ({
    sessionId: firstId + i,
    groupId,
    status: 'completed',
    reward,
    rowCount: 1,
  }));
}

function advantagesOf(inputs: AdvantageInput[], options: AdvantageOptions): number[] {
  return computeAdvantages(inputs, options).sessions.map((session) => session.advantage);
}

const EPS = 1e-6;

describe('computeAdvantages', () => {
  it.each([
    // [1,0,0,1]: mean 0.5, population std 0.5 -> +-0.5 / (0.5 + eps) ~ +-1.
    { rewards: [1, 0, 0, 1], options: { estimator: 'grpo' }, expected: [1, -1, -1, 1].map((s) => (s * 0.5) / (0.5 + EPS)) },
    // Sample std (torch.std, as verl/OpenRLHF): sqrt(1/3).
    {
      rewards: [1, 0, 0, 1],
      options: { estimator: 'grpo', std: 'sample' },
      expected: [1, -1, -1, 1].map((s) => (s * 0.5) / (Math.sqrt(1 / 3) + EPS)),
    },
    // [1,0,0,0]: mean 0.25, population std sqrt(3)/4.
    {
      rewards: [1, 0, 0, 0],
      options: { estimator: 'grpo' },
      expected: [0.75, -0.25, -0.25, -0.25].map((d) => d / (Math.sqrt(3) / 4 + EPS)),
    },
    { rewards: [1, 0, 0, 1], options: { estimator: 'grpo', epsilon: 0 }, expected: [1, -1, -1, 1] },
    { rewards: [1, 0, 0, 0], options: { estimator: 'mean' }, expected: [0.75, -0.25, -0.25, -0.25] },
    // Leave-one-out: r - mean of the others.
    { rewards: [1, 0, 0, 0], options: { estimator: 'loo' }, expected: [1, -1 / 3, -1 / 3, -1 / 3] },
    { rewards: [3, 1, 2], options: { estimator: 'loo' }, expected: [3 - 1.5, 1 - 2.5, 2 - 2] },
    { rewards: [1, 0, 0, 1], options: { estimator: 'none' }, expected: [0, 0, 0, 0] },
    // All equal (including values whose float mean is not exact) -> 0.
    { rewards: [0.1, 0.1, 0.1], options: { estimator: 'grpo' }, expected: [0, 0, 0] },
    { rewards: [1, 1, 1, 1], options: { estimator: 'loo' }, expected: [0, 0, 0, 0] },
    { rewards: [0.7], options: { estimator: 'grpo' }, expected: [0] },
  ] satisfies { rewards: number[]; options: AdvantageOptions; expected: number[] }[])(
    '$options.estimator $options.std on $rewards',
    ({ rewards, options, expected }) => {
      const actual = advantagesOf(group(rewards), options);
      expect(actual).toHaveLength(expected.length);
      actual.forEach((value, i) => expect(value).toBeCloseTo(expected[i]!, 9));
    },
  );

  it('excludes infra_error and unevaluated sessions from the group and from the output', () => {
    const inputs: AdvantageInput[] = [
      ...group([1, 0, 0, 1]),
      { sessionId: 9, groupId: 'task-a', status: 'infra_error', reward: 0, rowCount: 2 },
      { sessionId: 10, groupId: 'task-a', status: 'eval_error', reward: null, rowCount: 1 },
    ];
    const result = computeAdvantages(inputs, { estimator: 'grpo', epsilon: 0 });
    expect(result.sessions.map((s) => [s.sessionId, s.advantage])).toEqual([
      [1, 1],
      [2, -1],
      [3, -1],
      [4, 1],
    ]);
    expect(result.sessions[0]!.group).toEqual({ size: 4, mean: 0.5, std: 0.5 });
    expect(result.excluded).toEqual([
      { sessionId: 9, groupId: 'task-a', reason: 'infra-error' },
      { sessionId: 10, groupId: 'task-a', reason: 'no-reward' },
    ]);
  });

  it('keeps groups apart', () => {
    const inputs = [...group([1, 0], 'a', 1), ...group([5, 5], 'b', 3)];
    expect(advantagesOf(inputs, { estimator: 'mean' })).toEqual([0.5, -0.5, 0, 0]);
  });

  it('weights each row by 1 / rows of its session; a session without rows weighs 0', () => {
    const inputs: AdvantageInput[] = [
      { sessionId: 1, groupId: 'a', status: 'completed', reward: 1, rowCount: 4 },
      { sessionId: 2, groupId: 'a', status: 'timeout', reward: 0, rowCount: 1 },
      { sessionId: 3, groupId: 'a', status: 'agent_error', reward: 0, rowCount: 0 },
    ];
    const result = computeAdvantages(inputs, { estimator: 'mean' });
    expect(result.sessions.map((s) => s.lossWeight)).toEqual([0.25, 1, 0]);
    expect(result.sessions.map((s) => s.advantage)).toEqual([1 - 1 / 3, -1 / 3, -1 / 3]);
  });

  it.each([
    ['a non-finite reward', group([Number.NaN])],
    ['a repeated session', [...group([1]), ...group([0])]],
    ['a negative row count', [{ ...group([1])[0]!, rowCount: -1 }]],
  ])('rejects %s', (_name, inputs) => {
    expect(() => computeAdvantages(inputs, { estimator: 'grpo' })).toThrow(DataError);
  });
});
