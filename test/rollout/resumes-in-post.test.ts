// Which sessions a resume only evaluates (their agent ended with a gradable outcome): never one a serve batch's
// tail cut, whose group the trainer was told is not delivered.
import { describe, expect, it } from 'vitest';
import { resumesInPost } from '../../src/rollout/run-job.js';
import type { RunSessionSummary } from '../../src/store/run-session-queries.js';

const summary = (fields: { stage: string; status: string | null; statusReason: string | null; agentOutcomeStatus: string | null }) =>
  fields as unknown as RunSessionSummary;

describe('resumesInPost', () => {
  it('evaluates an agent that finished before the kill or a cancel, not one the tail cut, not one that never finished', () => {
    expect(resumesInPost(summary({ stage: 'post', status: null, statusReason: null, agentOutcomeStatus: 'completed' }))).toBe(true);
    expect(resumesInPost(summary({ stage: 'done', status: 'cancelled', statusReason: 'interrupted', agentOutcomeStatus: 'timeout' }))).toBe(true);
    expect(resumesInPost(summary({ stage: 'done', status: 'cancelled', statusReason: 'tail_cancelled', agentOutcomeStatus: 'completed' }))).toBe(false);
    expect(resumesInPost(summary({ stage: 'done', status: 'completed', statusReason: 'agent_finished', agentOutcomeStatus: 'completed' }))).toBe(false);
    expect(resumesInPost(summary({ stage: 'agent', status: null, statusReason: null, agentOutcomeStatus: null }))).toBe(false);
  });
});
