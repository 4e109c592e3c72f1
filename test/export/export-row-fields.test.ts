// What a polar row carries besides tokens, on both builders: status, trace and steps, stop reason, sampling sent,
// timings, per-token versions; and which reward-less sessions `--advantage none` exports.
import { afterEach, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/capture/call-record.js';
import { exportRun, type ExportRunOptions } from '../../src/export/export-run.js';
import type { PolarExportRecord } from '../../src/export/shape-polar-row.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { constructedSession } from './constructed-session.js';
import { parseJsonl } from './read-exported-rows.js';
import { seedRun, type SeedSession } from './seed-run.js';

let store: Store;
afterEach(() => store?.close());

async function exportPolar(options: Partial<ExportRunOptions> = {}) {
  let text = '';
  const summary = await exportRun(store, { run: 'run-1', messages: false, ...options }, (line) => {
    text += line;
  });
  return { records: parseJsonl(text) as PolarExportRecord[], summary };
}

const T0 = 1_700_000_000_000;
/**
 * Per call of constructedSession (main1, main2, side, main3, compacted, sub1, sub2, after-compaction): when it
 * ran, what was sent, its version. The side call runs during the main agent's first tool run; main2 was sent
 * at temperature 0.6, every other call at 1; main3 and everything after it ran under policy version 4.
 */
const callRecords: Partial<CallRecord>[] = [
  { startedAt: T0, latencyMs: 100, sentSampling: { temperature: 1, max_tokens: 512 }, policyVersion: 3 },
  { startedAt: T0 + 300, latencyMs: 100, sentSampling: { max_tokens: 512, temperature: 0.6 }, policyVersion: 3 },
  { startedAt: T0 + 150, latencyMs: 50, sentSampling: { temperature: 1, max_tokens: 512 }, policyVersion: 3 },
  { startedAt: T0 + 600, latencyMs: 100, sentSampling: { temperature: 1, max_tokens: 512 }, policyVersion: 4 },
  { startedAt: T0 + 1000, latencyMs: 100, sentSampling: { temperature: 1, max_tokens: 512 }, policyVersion: 4 },
  { startedAt: T0 + 1200, latencyMs: 100, sentSampling: { temperature: 1, max_tokens: 512 }, policyVersion: 4 },
  { startedAt: T0 + 1400, latencyMs: 100, sentSampling: { temperature: 1, max_tokens: 512 }, policyVersion: 4 },
  { startedAt: T0 + 1600, latencyMs: 100, sentSampling: { temperature: 1, max_tokens: 512 }, policyVersion: 4 },
];

const session: SeedSession = {
  instanceId: 'a',
  status: 'completed',
  reason: 'agent_finished',
  reward: 1,
  timings: { create: 100, prepare: 50, agent: 9000, extract: 20, evaluate: 700, teardown: 10 },
  // main3 ends the main lineage with a tool call; the others stop.
  calls: constructedSession.map((call, k) => (k === 3 ? { ...call, finishReason: 'tool_calls' } : call)),
  callRecords,
};

describe('polar rows: status, traces, stop reason, sampling, timings, versions', () => {
  it('prefix_merging: one trace per lineage, the merged main row with two temperatures and two versions', async () => {
    store = openStore(':memory:');
    const [seeded] = seedRun(store, 'run-1', [session]);
    const { records } = await exportPolar();
    const sid = seeded!.sessionId;
    expect(records).toHaveLength(4);
    for (const record of records) {
      expect(record).toMatchObject({ status: 'completed', status_reason: 'agent_finished', step_index: 0, is_last_step: true });
      expect(record.trace_id).toBe(`${sid}:${record.lineage_id}`);
      expect(record.call_sampling).toHaveLength(record.call_ids.length);
      expect(record.versions).toHaveLength(record.response_ids.length);
      expect(record.timings).toMatchObject({ agent_ms: 9000, init_ms: 150, eval_ms: 700 });
    }
    // A side lineage is its own trace.
    expect(new Set(records.map((record) => record.trace_id)).size).toBe(4);

    const [main, side, compacted, sub] = records;
    expect(main!.stop_reason).toBe('tool_calls');
    expect(records.slice(1).map((record) => record.stop_reason)).toEqual(['stop', 'stop', 'stop']);
    // main1 and main3 at temperature 1, main2 at 0.6: no single value for the row, one per call.
    expect(main!.sampling).toBeNull();
    expect(main!.call_sampling).toEqual([
      { max_tokens: 512, temperature: 1 },
      { max_tokens: 512, temperature: 0.6 },
      { max_tokens: 512, temperature: 1 },
    ]);
    expect(sub!.sampling).toEqual({ max_tokens: 512, temperature: 1 });
    // Versions: 3 on main1 and main2's tokens, 4 on main3's, -1 on every masked token.
    const sampledVersions = main!.versions!.filter((_, i) => main!.loss_mask[i] === 1);
    expect(sampledVersions).toEqual([3, 3, 3, 3, 3, 4, 4]);
    main!.loss_mask.forEach((bit, i) => expect(main!.versions![i] === -1).toBe(bit === 0));
    expect(main!.policy_versions).toEqual([3, 4]);
    expect([side, compacted, sub].map((record) => record!.policy_versions)).toEqual([[3], [4], [4]]);
    // Model time: the three main calls. Tool time: the main row's 700 ms window less every call in flight
    // in it (its own three and the side call): 700 - 350.
    expect(main!.timings).toEqual({ agent_ms: 9000, model_ms: 300, tool_ms: 350, init_ms: 150, eval_ms: 700 });
    expect(side!.timings).toMatchObject({ model_ms: 50, tool_ms: 0 });
    // The compacted row's window (1000..1700) holds the sub-agent's two calls too: the session was waiting on
    // the model then, so only 700 - 4 x 100 is tool time.
    expect(compacted!.timings).toMatchObject({ model_ms: 200, tool_ms: 300 });
  });

  it('per_request: the same traces, one step per call, the last step on the lineage\'s last call; tool time adds up to the merged row\'s', async () => {
    store = openStore(':memory:');
    const [seeded] = seedRun(store, 'run-1', [session]);
    const merged = (await exportPolar()).records;
    const { records } = await exportPolar({ builder: 'per_request' });
    const ids = seeded!.callIds;
    const byCall = new Map(records.map((record) => [record.call_ids[0]!, record]));
    const steps = (indexes: number[]) => indexes.map((k) => [byCall.get(ids[k]!)!.step_index, byCall.get(ids[k]!)!.is_last_step]);
    expect(steps([0, 1, 3])).toEqual([[0, false], [1, false], [2, true]]);
    expect(steps([5, 6])).toEqual([[0, false], [1, true]]);
    expect(steps([4, 7])).toEqual([[0, false], [1, true]]);
    expect(steps([2])).toEqual([[0, true]]);
    // A call's trace is the trace of the merged row holding it.
    for (const row of merged) for (const callId of row.call_ids) expect(byCall.get(callId)!.trace_id).toBe(row.trace_id);
    // Each row: its one call's values; main2's temperature stays its own.
    expect(byCall.get(ids[1]!)!.sampling).toEqual({ max_tokens: 512, temperature: 0.6 });
    expect(byCall.get(ids[3]!)!.versions).toEqual([4, 4]);
    expect(byCall.get(ids[3]!)!.stop_reason).toBe('tool_calls');
    // Tool time of main2's step: from main1's end (100) to its own end (400), less the side call and itself.
    expect([0, 1, 3].map((k) => byCall.get(ids[k]!)!.timings.tool_ms)).toEqual([0, 150, 200]);
    expect([0, 1, 3].reduce((sum, k) => sum + byCall.get(ids[k]!)!.timings.tool_ms, 0)).toBe(merged[0]!.timings.tool_ms);
  });

  it('a split lineage: several rows of one trace, steps in order, only the last marked', async () => {
    store = openStore(':memory:');
    // main2 re-renders main1's answer differently (token 999 for 201): it cannot extend the chain but
    // continues the lineage (small drift), so the main lineage has two rows.
    const [c0, c1] = constructedSession;
    const drifted = c1!.promptTokenIds!.map((id) => (id === 201 ? 999 : id));
    const [seeded] = seedRun(store, 'run-1', [{ instanceId: 'a', status: 'completed', reward: 1, calls: [c0!, { ...c1!, promptTokenIds: drifted }] }]);
    const { records } = await exportPolar();
    expect(records.map((record) => record.call_ids)).toEqual([[seeded!.callIds[0]], [seeded!.callIds[1]]]);
    expect(records.map((record) => [record.trace_id, record.step_index, record.is_last_step])).toEqual([
      [`${seeded!.sessionId}:0`, 0, false],
      [`${seeded!.sessionId}:0`, 1, true],
    ]);
  });
});

describe('the capture field of every row', () => {
  const opened = { mode: 'chat' as const, tokenInFallback: { reason: 'no-lineage', detail: 'the session has no open lineage yet' } };
  const continued = { mode: 'token_in' as const };
  /** A token-in session: main1, side and sub1 open their lineages; the compacted call falls back (context-rewritten). */
  const tokenInModes: Partial<CallRecord>[] = [opened, continued, opened, continued, { mode: 'chat', tokenInFallback: { reason: 'context-rewritten', detail: 'turn 1 differs' } }, opened, continued, continued];

  it('token_in rows, a mixed row where a call fell back, chat rows; in the polar, verl and openrlhf shapes alike', async () => {
    store = openStore(':memory:');
    seedRun(store, 'run-1', [
      { ...session, callRecords: callRecords.map((record, k) => ({ ...record, ...tokenInModes[k] })) },
      { ...session, instanceId: 'b' },
    ]);
    const { records } = await exportPolar();
    expect(records.map((record) => [record.lineage_kind, record.capture])).toEqual([
      ['main', 'token_in'],
      ['side', 'token_in'],
      ['sub-agent', 'mixed'],
      ['sub-agent', 'token_in'],
      ['main', 'chat'],
      ['side', 'chat'],
      ['sub-agent', 'chat'],
      ['sub-agent', 'chat'],
    ]);
    const perCall = (await exportPolar({ builder: 'per_request' })).records.slice(0, 8).map((record) => record.capture);
    expect(perCall).toEqual(['token_in', 'token_in', 'token_in', 'token_in', 'mixed', 'token_in', 'token_in', 'token_in']);
    let verl = '';
    await exportRun(store, { run: 'run-1', format: 'verl', messages: false }, (line) => {
      verl += line;
    });
    expect((parseJsonl(verl) as { extra_info: { capture: string } }[]).map((row) => row.extra_info.capture)).toEqual(records.map((record) => record.capture));
    let openrlhf = '';
    await exportRun(store, { run: 'run-1', format: 'openrlhf', messages: false }, (line) => {
      openrlhf += line;
    });
    expect((parseJsonl(openrlhf) as { polar: { capture: string } }[]).map((row) => row.polar.capture)).toEqual(records.map((record) => record.capture));
  });
});

describe('reward-less sessions', () => {
  /** One call sampling [7, EOS]. */
  const single = (status: SeedSession['status'], reward: number | null): SeedSession => ({
    instanceId: 'a',
    status,
    reward,
    calls: [{ id: 1, seq: 0, status: 'ok', promptTokenIds: [1, 2], tokenIds: [7, 151645], logprobs: [-0.5, -0.01], finishReason: 'stop', response: null }],
  });

  it('--advantage none exports sessions never graded with reward and advantage null; eval_error, cancelled and infra_error stay out with their reasons', async () => {
    store = openStore(':memory:');
    const seeded = seedRun(store, 'run-1', [
      single('completed', 1),
      single('completed', null),
      single('agent_error', null),
      single('timeout', null),
      single('eval_error', null),
      single('cancelled', null),
      single('infra_error', null),
    ]);
    const { records, summary } = await exportPolar({ advantage: 'none' });
    expect(records.map((record) => [record.session_id, record.status, record.reward, record.advantage])).toEqual([
      [seeded[0]!.sessionId, 'completed', 1, 0],
      [seeded[1]!.sessionId, 'completed', null, null],
      [seeded[2]!.sessionId, 'agent_error', null, null],
      [seeded[3]!.sessionId, 'timeout', null, null],
    ]);
    expect(summary.sessions.skipped).toEqual({ 'eval-error': 1, cancelled: 1, 'infra-error': 1 });
    // grpo keeps skipping them, counted as never graded; the graded session is exported.
    const grpo = await exportPolar();
    expect(grpo.records.map((record) => record.session_id)).toEqual([seeded[0]!.sessionId]);
    expect(grpo.summary.sessions.skipped).toEqual({ 'no-reward': 3, 'eval-error': 1, cancelled: 1, 'infra-error': 1 });
  });

  it('sft never accepts a session without a reward, whatever the estimator', async () => {
    store = openStore(':memory:');
    seedRun(store, 'run-1', [single('completed', null), single('eval_error', null)]);
    const { records, summary } = await exportPolar({ format: 'sft', advantage: 'none' });
    expect(records).toEqual([]);
    expect(summary.sessions.skipped).toEqual({ 'no-reward': 1, 'eval-error': 1 });
  });
});
