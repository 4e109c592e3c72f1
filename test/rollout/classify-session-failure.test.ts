// Every way an agent stage can end maps to exactly one status with a typed reason; infrastructure is
// never the agent's fault.
import { describe, expect, it } from 'vitest';
import { type AgentRunFacts, type CallOutline, classifySessionFailure } from '../../src/rollout/classify-session-failure.js';

const T0 = 1_000_000;
const call = (seq: number, status: string, httpStatus = 200, startedAt = T0 + seq * 1000, latencyMs = 500): CallOutline => ({ seq, status, httpStatus, startedAt, latencyMs });
const facts = (overrides: Partial<AgentRunFacts>): AgentRunFacts => ({ exitCode: 0, timedOut: false, agentStartedAt: T0, agentEndedAt: T0 + 60_000, oomKills: 0, calls: [call(0, 'ok'), call(1, 'ok')], ...overrides });

describe('classifySessionFailure', () => {
  it.each<[string, Partial<AgentRunFacts>, string, string, boolean]>([
    ['exit 0', {}, 'completed', 'agent_finished', false],
    ['a harness that exits non-zero on its own', { exitCode: 1 }, 'agent_error', 'agent_crashed', false],
    ['a harness killed (not by OOM)', { exitCode: 137 }, 'agent_error', 'agent_crashed', false],
    ['context overflow as the last call', { exitCode: 1, calls: [call(0, 'ok'), call(1, 'context_overflow', 400)] }, 'agent_error', 'context_overflow', false],
    ['an upstream 400', { exitCode: 1, calls: [call(0, 'ok'), call(1, 'upstream_error', 400)] }, 'agent_error', 'upstream_rejected', false],
    ['an upstream 5xx', { exitCode: 1, calls: [call(0, 'ok'), call(1, 'upstream_error', 503)] }, 'infra_error', 'upstream_5xx', true],
    ['an unreachable upstream', { exitCode: 1, calls: [call(0, 'ok'), call(1, 'upstream_unavailable', 502)] }, 'infra_error', 'upstream_unavailable', true],
    ['an upstream timeout', { exitCode: 1, calls: [call(0, 'upstream_timeout', 504)] }, 'infra_error', 'upstream_timeout', true],
    ['no token ids, even when the harness finished', { calls: [call(0, 'ok'), call(1, 'no_token_ids')] }, 'infra_error', 'no_token_ids', true],
    ['a model mismatch, even when the harness finished', { calls: [call(0, 'model_mismatch')] }, 'infra_error', 'model_mismatch', true],
    ['a 5xx the harness recovered from', { calls: [call(0, 'upstream_error', 500), call(1, 'ok')] }, 'completed', 'agent_finished', false],
    ['an OOM-killed harness', { exitCode: 137, oomKills: 1 }, 'infra_error', 'container_oom', true],
    ['a tool killed by OOM while the harness finished', { exitCode: 0, oomKills: 1 }, 'completed', 'agent_finished', false],
    ['a deadline while the model answered quickly', { exitCode: 137, timedOut: true }, 'timeout', 'agent_deadline', false],
    ['a deadline after the last call failed upstream', { exitCode: 137, timedOut: true, calls: [call(0, 'ok'), call(1, 'upstream_unavailable', 502)] }, 'infra_error', 'upstream_unavailable', true],
    [
      'a deadline while one call was in flight for most of the window',
      { exitCode: 137, timedOut: true, calls: [call(0, 'ok'), call(1, 'client_aborted', 200, T0 + 5_000, 55_000)] },
      'infra_error',
      'model_stalled',
      true,
    ],
  ])('%s', (_name, overrides, status, reason, retryable) => {
    expect(classifySessionFailure(facts(overrides))).toMatchObject({ status, reason, retryable });
  });

  it('a deadline that cut off a call after calls held most of the window is a stall', () => {
    const calls = [call(0, 'ok', 200, T0 + 1000, 20_000), call(1, 'client_aborted', 200, T0 + 25_000, 40_000)];
    expect(classifySessionFailure(facts({ timedOut: true, exitCode: 137, calls }))).toMatchObject({ status: 'infra_error', reason: 'model_stalled' });
  });

  it('a deadline with many short calls stays the agent’s (busy model, not a stall)', () => {
    const calls = Array.from({ length: 50 }, (_, seq) => call(seq, 'ok', 200, T0 + seq * 1200, 1100));
    expect(classifySessionFailure(facts({ timedOut: true, exitCode: 137, calls }))).toMatchObject({ status: 'timeout', reason: 'agent_deadline' });
  });
});
