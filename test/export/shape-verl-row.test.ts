// verl record: unpadded prompts/responses/response_mask/rollout_log_probs, uid = group.
import { describe, expect, it } from 'vitest';
import { EXPORT_SCHEMA_VERSION } from '../../src/export/export-schema-version.js';
import { shapeVerlRow } from '../../src/export/shape-verl-row.js';
import { exportInput, mergedRow } from './export-fixture.js';

describe('shapeVerlRow', () => {
  it('maps the row onto verl field names, with 0.0 logprobs under mask 0', () => {
    expect(shapeVerlRow(exportInput)).toEqual({
      prompts: [1, 2],
      responses: mergedRow.responseIds,
      response_mask: [1, 1, 0, 0, 1, 1],
      rollout_log_probs: [-0.1, -0.2, 0, 0, -0.3, -0.4],
      reward_score: 1,
      uid: 'run-1/django__django-11099',
      advantage: 0.999998,
      loss_weight: 0.5,
      extra_info: {
        schema_version: EXPORT_SCHEMA_VERSION,
        session_id: 42,
        row_index: 1,
        task_id: 'django__django-11099',
        run_id: 'run-1',
        builder: 'prefix_merging',
        call_ids: [5, 6],
        lineage_id: null,
        lineage_kind: null,
        policy_versions: [3, 4],
        simulated: false,
        status: 'completed',
        status_reason: 'agent_finished',
        trace_id: '42:0',
        step_index: 1,
        is_last_step: true,
        stop_reason: 'stop',
        capture: 'token_in',
        sampling: null,
        timings: { agent_ms: 9000, model_ms: 800, tool_ms: 350, init_ms: 1200, eval_ms: null },
      },
    });
  });

  it('leaves reward_score null for a session never graded (verl then scores it with its reward loop)', () => {
    const record = shapeVerlRow({ ...exportInput, reward: null, advantage: null });
    expect([record.reward_score, record.advantage]).toEqual([null, null]);
  });
});
