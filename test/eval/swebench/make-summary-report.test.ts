import { describe, expect, it } from 'vitest';
import { makeSummaryReport, summaryReportFileName, type InstanceOutcome } from '../../../src/eval/swebench/make-summary-report.js';

describe('makeSummaryReport', () => {
  it('sorts every dataset instance into exactly the official buckets', () => {
    const outcomes = new Map<string, InstanceOutcome>([
      ['r__r-1', { kind: 'completed', resolved: true }],
      ['r__r-2', { kind: 'completed', resolved: false }],
      ['r__r-3', { kind: 'error' }],
      ['r__r-7', { kind: 'invalid-report' }],
      // An outcome for an empty-patch prediction is ignored: empty patches are never run.
      ['r__r-5', { kind: 'completed', resolved: true }],
    ]);
    const report = makeSummaryReport({
      datasetIds: ['r__r-1', 'r__r-10', 'r__r-2', 'r__r-3', 'r__r-4', 'r__r-5', 'r__r-6', 'r__r-7'],
      predictions: [
        { instance_id: 'r__r-2', model_patch: 'diff' },
        { instance_id: 'r__r-1', model_patch: 'diff' },
        { instance_id: 'r__r-3', model_patch: 'diff' },
        { instance_id: 'r__r-4', model_patch: 'diff' }, // no outcome: error
        { instance_id: 'r__r-5', model_patch: '' },
        { instance_id: 'r__r-6', model_patch: null },
        { instance_id: 'r__r-7', model_patch: 'diff' },
      ],
      outcomes,
    });
    expect(report).toEqual({
      total_instances: 8,
      submitted_instances: 7,
      completed_instances: 3,
      resolved_instances: 1,
      unresolved_instances: 1,
      empty_patch_instances: 2,
      error_instances: 3,
      completed_ids: ['r__r-1', 'r__r-2', 'r__r-7'],
      incomplete_ids: ['r__r-10'],
      empty_patch_ids: ['r__r-5', 'r__r-6'],
      submitted_ids: ['r__r-1', 'r__r-2', 'r__r-3', 'r__r-4', 'r__r-5', 'r__r-6', 'r__r-7'],
      resolved_ids: ['r__r-1'],
      unresolved_ids: ['r__r-2'],
      error_ids: ['r__r-3', 'r__r-4', 'r__r-7'],
      schema_version: 2,
    });
    expect(Object.keys(report)).toEqual([
      'total_instances', 'submitted_instances', 'completed_instances', 'resolved_instances', 'unresolved_instances',
      'empty_patch_instances', 'error_instances', 'completed_ids', 'incomplete_ids', 'empty_patch_ids', 'submitted_ids',
      'resolved_ids', 'unresolved_ids', 'error_ids', 'schema_version',
    ]);
  });

  it('sorts ids by code unit like Python (uppercase before lowercase)', () => {
    const report = makeSummaryReport({ datasetIds: ['b', 'B', 'a'], predictions: [], outcomes: new Map() });
    expect(report.incomplete_ids).toEqual(['B', 'a', 'b']);
  });

  it('names the file like upstream', () => {
    expect(summaryReportFileName('Qwen/Qwen3-8B', 'run1')).toBe('Qwen__Qwen3-8B.run1.json');
  });
});
