// Engine admission's first estimate comes from what recent sessions on the same model held and reached: the held
// context (each call's prompt + half its sampled tokens, weighted by its sampled tokens) and the last call's prompt +
// sampled tokens of sessions whose agent ran to its own end, newest first.
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionStatus } from '../../src/store/run-repository.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { okCallRecord } from '../helpers/ok-call-record.js';

const ids = (n: number, from = 1): number[] => Array.from({ length: n }, (_, i) => from + i);

describe('recentSessionContexts', () => {
  let store: Store;
  afterEach(() => store?.close());

  function session(runId: number, taskId: number, sample: number, status: SessionStatus | null, calls: Array<{ prompt: number; sampled: number; model?: string }>): void {
    const created = store.runs.addSession(runId, taskId, sample, true);
    calls.forEach((call) =>
      store.calls.insert(okCallRecord({ sessionId: created.id, prompt: ids(call.prompt), sampled: ids(call.sampled, 1000), logprobs: ids(call.sampled).map(() => -0.1), messages: [] }, { ...(call.model !== undefined ? { upstreamModel: call.model } : {}) })),
    );
    if (status !== null) store.runs.finishSession(created.id, { status, patch: '' });
  }

  it('reads the last call of each session the agent ended, for the model asked, newest first', () => {
    store = openStore(':memory:');
    const run = store.runs.create({ name: 'r', harness: 'pi', datasetPath: '/d.jsonl', upstream: 'sim:oracle', samples: 8, config: {}, ownerPid: 1, ownerHost: 'h' });
    const task = store.runs.addTask(run.id, 'repo__x-1', {});
    session(run.id, task.id, 0, 'completed', [{ prompt: 100, sampled: 10 }, { prompt: 300, sampled: 20 }]); // last call: 320
    session(run.id, task.id, 1, 'agent_error', [{ prompt: 50, sampled: 5 }]); // 55
    session(run.id, task.id, 2, 'infra_error', [{ prompt: 900, sampled: 9 }]); // not the agent's end
    session(run.id, task.id, 3, 'cancelled', [{ prompt: 800, sampled: 8 }]); // cut off
    session(run.id, task.id, 4, null, [{ prompt: 700, sampled: 7 }]); // still running
    session(run.id, task.id, 5, 'timeout', [{ prompt: 60, sampled: 6, model: 'other/model' }]); // another model
    session(run.id, task.id, 6, 'eval_error', [{ prompt: 400, sampled: 40 }, { prompt: 200, sampled: 2 }]); // compacted: its last call counts, 202
    session(run.id, task.id, 7, 'completed', []); // no calls
    session(run.id, task.id, 8, 'completed', [{ prompt: 30, sampled: 3 }, { prompt: 0, sampled: 0 }]); // its last call held nothing (a context overflow): 33
    const finals = (options: { model: string; limit?: number }): number[] => store.calls.recentSessionContexts(options).map((context) => context.final);
    expect(finals({ model: 'Qwen/Qwen3-8B' })).toEqual([33, 202, 55, 320]);
    expect(finals({ model: 'Qwen/Qwen3-8B', limit: 2 })).toEqual([33, 202]);
    expect(finals({ model: 'other/model' })).toEqual([66]);
    expect(finals({ model: 'never/served' })).toEqual([]);
    // Held: (100 + 5) x 10 + (300 + 10) x 20 over 30 sampled; (400 + 20) x 40 + (200 + 1) x 2 over 42; one call: 50 + 2.5.
    const held = store.calls.recentSessionContexts({ model: 'Qwen/Qwen3-8B' }).map((context) => context.held);
    expect(held[0]).toBeCloseTo(31.5, 6);
    expect(held[1]).toBeCloseTo((420 * 40 + 201 * 2) / 42, 6);
    expect(held[2]).toBeCloseTo(52.5, 6);
    expect(held[3]).toBeCloseTo((105 * 10 + 310 * 20) / 30, 6);
  });
});
