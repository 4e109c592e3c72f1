// OpenRLHF record: whole sequence, action ranges over it, per-position rollout logprobs.
import { describe, expect, it } from 'vitest';
import { InternalError } from '../../src/errors.js';
import { actionRanges, shapeOpenRlhfRow } from '../../src/export/shape-openrlhf-row.js';
import { exportInput } from './export-fixture.js';

describe('shapeOpenRlhfRow', () => {
  it('lays the row out as observation tokens with action ranges and aligned logprobs', () => {
    const record = shapeOpenRlhfRow(exportInput);
    expect(record.observation_tokens).toEqual([1, 2, 3, 151645, 198, 4, 5, 151645]);
    expect(record.action_ranges).toEqual([
      [2, 4],
      [6, 8],
    ]);
    expect(record.rollout_log_probs).toEqual([0, 0, -0.1, -0.2, 0, 0, -0.3, -0.4]);
    expect(record).toMatchObject({ prompt: 'django__django-11099', label: '', reward: 1, scores: 1, truncated: false });
    expect(record.polar).toMatchObject({ session_id: 42, group_id: 'run-1/django__django-11099', loss_weight: 0.5, policy_versions: [3, 4] });
    expect(record.polar).toMatchObject({ status: 'completed', status_reason: 'agent_finished', trace_id: '42:0', step_index: 1, is_last_step: true, stop_reason: 'stop' });
  });

  it('marks a row whose last call hit max_tokens as truncated, and refuses a row without a reward (a bug: the export refuses first)', () => {
    expect(shapeOpenRlhfRow({ ...exportInput, stopReason: 'length' }).truncated).toBe(true);
    expect(() => shapeOpenRlhfRow({ ...exportInput, reward: null, advantage: null })).toThrow(InternalError);
  });

  it('keeps every action token inside a range and every masked token outside', () => {
    const record = shapeOpenRlhfRow(exportInput);
    const inRange = (i: number) => record.action_ranges.some(([start, end]) => i >= start && i < end);
    record.observation_tokens.forEach((_, i) => {
      const mask = i < 2 ? 0 : exportInput.row.lossMask[i - 2];
      expect(inRange(i)).toBe(mask === 1);
    });
  });

  it.each([
    { mask: [], ranges: [] },
    { mask: [0, 0], ranges: [] },
    { mask: [1, 1, 1], ranges: [[3, 6]] },
    { mask: [0, 1, 0, 1], ranges: [[4, 5], [6, 7]] },
  ] satisfies { mask: (0 | 1)[]; ranges: [number, number][] }[])('actionRanges($mask)', ({ mask, ranges }) => {
    expect(actionRanges({ promptIds: [9, 9, 9], lossMask: mask })).toEqual(ranges);
  });
});
