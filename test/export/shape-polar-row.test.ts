// polar's own record carries the whole row, the scores and where it came from.
import { describe, expect, it } from 'vitest';
import { EXPORT_SCHEMA_VERSION } from '../../src/export/export-schema-version.js';
import { policyVersionsOf, rowPolicyVersions } from '../../src/export/export-row-input.js';
import { shapePolarRow } from '../../src/export/shape-polar-row.js';
import { exportInput, mergedRow } from './export-fixture.js';

describe('shapePolarRow', () => {
  it('maps every field', () => {
    expect(shapePolarRow(exportInput)).toEqual({
      schema_version: EXPORT_SCHEMA_VERSION,
      session_id: 42,
      row_index: 1,
      group_id: 'run-1/django__django-11099',
      task_id: 'django__django-11099',
      run_id: 'run-1',
      sample_index: 3,
      harness: 'codex',
      model: 'Qwen/Qwen3.5-4B',
      simulated: false,
      status: 'completed',
      status_reason: 'agent_finished',
      builder: 'prefix_merging',
      trace_id: '42:0',
      step_index: 1,
      is_last_step: true,
      call_ids: [5, 6],
      prompt_ids: mergedRow.promptIds,
      response_ids: mergedRow.responseIds,
      loss_mask: mergedRow.lossMask,
      logprobs: mergedRow.logprobs,
      versions: [3, 3, -1, -1, 4, 4],
      reward: 1,
      advantage: 0.999998,
      loss_weight: 0.5,
      lineage_id: null,
      lineage_kind: null,
      policy_versions: [3, 4],
      stop_reason: 'stop',
      sampling: null,
      call_sampling: [{ temperature: 1, top_p: 1 }, { temperature: 0.7, top_p: 1 }],
      capture: 'token_in',
      timings: { agent_ms: 9000, model_ms: 800, tool_ms: 350, init_ms: 1200, eval_ms: null },
      messages: [{ role: 'user', content: 'fix it' }],
      tools: null,
    });
  });

  it('marks simulated trajectories and defaults missing messages to null', () => {
    const record = shapePolarRow({
      ...exportInput,
      session: { ...exportInput.session, simulated: true },
      messages: undefined,
    });
    expect(record.simulated).toBe(true);
    expect(record.messages).toBeNull();
  });

  it('carries a session never graded as reward and advantage null', () => {
    const record = shapePolarRow({ ...exportInput, reward: null, advantage: null });
    expect([record.reward, record.advantage]).toEqual([null, null]);
    expect(JSON.parse(JSON.stringify(record))).toMatchObject({ reward: null, advantage: null });
  });
});

describe('rowPolicyVersions', () => {
  it('reads the per-token versions when the row has them, else the calls', () => {
    expect(rowPolicyVersions(mergedRow, [{ policyVersion: 9 }])).toEqual([3, 4]);
    expect(rowPolicyVersions({ ...mergedRow, versions: null }, [{ policyVersion: 9 }, { policyVersion: null }])).toEqual([9]);
  });
});

describe('policyVersionsOf', () => {
  it('lists the distinct versions ascending and skips calls without one', () => {
    expect(policyVersionsOf([{ policyVersion: 4 }, { policyVersion: 3 }, {}, undefined, { policyVersion: null }, { policyVersion: 4 }])).toEqual([3, 4]);
    expect(policyVersionsOf([])).toEqual([]);
  });
});
