// The batch description lists the ended sessions its results leave out, with the export's typed reason, so
// a trainer learns from the server which samples of a group are missing (and why) instead of guessing.
import { describe, expect, it } from 'vitest';
import { describeBatch } from '../../src/serve/describe-batch.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import type { SessionOutcome } from '../../src/store/run-repository.js';

const RUN = 'serve-b_0000000000000001';

/** Task a: completed (1), infra_error (0 rows). Task b: eval_error, cancelled without a reward, still running. */
function seeded(options: { graded: boolean }): Store {
  const store = openStore(':memory:');
  const run = store.runs.create({ name: RUN, harness: 'pi', datasetPath: '/tasks.jsonl', upstream: 'sim:oracle', samples: 3, config: {}, ownerPid: 1, ownerHost: 'test' });
  const a = store.runs.addTask(run.id, 'demo__a-1', { instance_id: 'demo__a-1' });
  const b = store.runs.addTask(run.id, 'demo__b-1', { instance_id: 'demo__b-1' });
  const end = (taskId: number, sample: number, outcome: SessionOutcome | null, reward: number | null = null) => {
    const session = store.runs.addSession(run.id, taskId, sample, true);
    if (outcome === null) return;
    store.runs.finishSession(session.id, outcome);
    if (reward !== null) store.runs.setReward(session.id, reward, null);
  };
  end(a.id, 0, { status: 'completed', reason: 'agent_finished' }, options.graded ? 1 : null);
  end(a.id, 1, { status: 'infra_error', reason: 'upstream_5xx' });
  end(a.id, 2, { status: 'timeout', reason: 'agent_deadline' }, options.graded ? 0 : null);
  end(b.id, 0, { status: 'eval_error', reason: 'eval_failed' });
  end(b.id, 1, { status: 'cancelled', reason: 'interrupted' });
  end(b.id, 2, null);
  store.batches.create({ id: 'b_0000000000000001', runName: RUN, idempotencyKey: null, requestHash: 'h', request: { harness: 'pi', samples: 3 }, policyVersion: 0, callbackUrl: null });
  return store;
}

describe('the batch description\'s excluded sessions', () => {
  it.each([true, false])('lists infra errors, eval errors and reward-less cancels with their reasons (graded %s)', (graded) => {
    const store = seeded({ graded });
    const description = describeBatch(store, store.batches.get('b_0000000000000001')!);
    expect(description.excluded).toEqual([
      { session_id: 2, group_id: `${RUN}/demo__a-1`, instance_id: 'demo__a-1', sample_index: 1, status: 'infra_error', status_reason: 'upstream_5xx', reason: 'infra-error' },
      { session_id: 4, group_id: `${RUN}/demo__b-1`, instance_id: 'demo__b-1', sample_index: 0, status: 'eval_error', status_reason: 'eval_failed', reason: 'eval-error' },
      { session_id: 5, group_id: `${RUN}/demo__b-1`, instance_id: 'demo__b-1', sample_index: 1, status: 'cancelled', status_reason: 'interrupted', reason: 'cancelled' },
    ]);
    // Never-graded sessions are served with advantage=none, so they are not excluded; a running one is not ended.
    expect(description.sessions).toMatchObject({ total: 6, done: 5 });
    store.close();
  });

  it('is empty before the run exists', () => {
    const store = openStore(':memory:');
    store.batches.create({ id: 'b_0000000000000002', runName: 'serve-b_0000000000000002', idempotencyKey: null, requestHash: 'h', request: { harness: 'pi', samples: 1, tasks: [{}] }, policyVersion: 0, callbackUrl: null });
    expect(describeBatch(store, store.batches.get('b_0000000000000002')!).excluded).toEqual([]);
    store.close();
  });
});
