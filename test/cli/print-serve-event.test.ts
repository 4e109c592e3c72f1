// `polar serve --verbose`: one plain line per thing the server does, for a person watching it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { printServeEvent } from '../../src/cli/print-serve-event.js';
import type { EngineEvent } from '../../src/rollout/rollout-engine.js';

function printed(events: EngineEvent[]): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).replace(/\n$/, '').split('\n'));
    return true;
  });
  for (const event of events) printServeEvent(event);
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('printServeEvent', () => {
  it('says what happens to batches, sessions, groups and generation', () => {
    const lines = printed([
      { type: 'batch', batchId: 'b_1', status: 'running', reason: null },
      { type: 'session', batchId: 'b_1', event: { type: 'session-stage', sessionId: 1, instanceId: 'task-1', sampleIndex: 0, stage: 'running' } },
      {
        type: 'session',
        batchId: 'b_1',
        event: { type: 'session-end', sessionId: 1, instanceId: 'task-1', sampleIndex: 0, status: 'completed', reason: 'agent_finished', detail: null, patchBytes: 4, calls: 1, timings: { agent: 900 }, reward: 1 },
      },
      { type: 'group', batchId: 'b_1', seq: 1, instanceId: 'task-1' },
      { type: 'target_reached', batchId: 'b_1', targetGroups: 1, tail: 'carry', complete: 1, cancelled: 0, carried: 3 },
      { type: 'generation', paused: true, policyVersion: 3, step: 'pause', mode: 'keep', weightsKind: null, sleeping: null },
      { type: 'generation', paused: false, policyVersion: 4, step: 'resume', mode: null, weightsKind: 'reload', sleeping: null },
      { type: 'batch', batchId: 'b_1', status: 'finished', reason: 'target reached: 1 of 1 groups' },
    ]);
    expect(lines).toEqual([
      'batch b_1: running',
      'session 1 task-1#0: completed (agent_finished), 1 call, patch 4 B, reward 1',
      'batch b_1: group 1 complete (task-1)',
      'batch b_1: target of 1 group reached (tail carry: 0 sessions cancelled, 3 sessions carried on)',
      'generation: pause (mode keep), policy version 3, paused',
      'generation: resume (weights reload), policy version 4, running',
      'batch b_1: finished (target reached: 1 of 1 groups)',
    ]);
  });
});
