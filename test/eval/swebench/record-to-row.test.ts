import { describe, expect, it } from 'vitest';
import { loadDataset } from '../../../src/eval/swebench/load-dataset.js';
import { parseSwebenchRecord } from '../../../src/eval/swebench/parse-swebench-record.js';
import { recordToRow } from '../../../src/eval/swebench/record-to-row.js';
import { EXAMPLE_DATASET } from '../../../src/rollout/build-example-task-image.js';

describe('recordToRow', () => {
  it('is the inverse of parseSwebenchRecord (extra fields and polar_spec included)', async () => {
    const [record] = await loadDataset(EXAMPLE_DATASET);
    const row = recordToRow({ ...record!, extra: { ...record!.extra, custom_field: [1, 2] } });
    expect(row).toMatchObject({ custom_field: [1, 2], polar_spec: { test_cmd: 'python3 -m unittest -v', log_parser: 'django' } });
    expect(parseSwebenchRecord(row, 'row')).toEqual({ ...record, extra: { ...record!.extra, custom_field: [1, 2] } });
  });
});
