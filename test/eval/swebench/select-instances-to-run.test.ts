import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src/errors.js';
import type { Prediction } from '../../../src/eval/swebench/load-predictions.js';
import { selectInstancesToRun } from '../../../src/eval/swebench/select-instances-to-run.js';
import type { SwebenchRecord } from '../../../src/eval/swebench/swebench-record.js';

const record = (id: string): SwebenchRecord => ({
  instance_id: id, repo: 'o/r', base_commit: 'c', patch: '', test_patch: '', problem_statement: '', FAIL_TO_PASS: [], PASS_TO_PASS: [], extra: {},
});
const prediction = (id: string, patch: string | null): Prediction => ({ instance_id: id, model_name_or_path: 'm', model_patch: patch, extra: {} });
const dataset = ['a', 'b', 'c', 'd'].map(record);

describe('selectInstancesToRun', () => {
  it('runs non-empty predictions, sets empty ones aside, ignores instances without one', () => {
    const selection = selectInstancesToRun({ dataset, predictions: [prediction('b', 'x'), prediction('c', ''), prediction('d', null)] });
    expect(selection.toRun.map((item) => item.record.instance_id)).toEqual(['b']);
    expect(selection.emptyPatchIds).toEqual(['c', 'd']);
    expect(selection.dataset).toHaveLength(4);
  });

  it('restricts to instance ids', () => {
    const selection = selectInstancesToRun({ dataset, predictions: [prediction('a', 'x'), prediction('b', 'x')], instanceIds: ['b'] });
    expect(selection.dataset.map((r) => r.instance_id)).toEqual(['b']);
    expect(selection.toRun.map((item) => item.record.instance_id)).toEqual(['b']);
  });

  it.each([
    ['a prediction outside the dataset', { predictions: [prediction('z', 'x')] }, /prediction ids are not in the dataset: z/],
    ['an unknown instance id', { predictions: [], instanceIds: ['y'] }, /instance ids are not in the dataset: y/],
  ])('rejects %s', (_name, input, message) => {
    expect(() => selectInstancesToRun({ dataset, ...input })).toThrow(DataError);
    expect(() => selectInstancesToRun({ dataset, ...input })).toThrow(message);
  });
});
