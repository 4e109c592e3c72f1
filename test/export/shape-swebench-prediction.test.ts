// SWE-bench predictions use the harness's exact field names.
import { describe, expect, it } from 'vitest';
import { shapeSwebenchPrediction } from '../../src/export/shape-swebench-prediction.js';

describe('shapeSwebenchPrediction', () => {
  it.each([
    { patch: 'diff --git a/x b/x\n', expected: 'diff --git a/x b/x\n' },
    { patch: null, expected: '' },
  ])('patch $patch', ({ patch, expected }) => {
    expect(shapeSwebenchPrediction({ instanceId: 'astropy__astropy-12907', modelNameOrPath: 'polar/run-1', patch })).toEqual({
      instance_id: 'astropy__astropy-12907',
      model_name_or_path: 'polar/run-1',
      model_patch: expected,
    });
  });
});
