// exportRun on hand-built runs: GRPO groups end to end, sub-agent/side-call/compaction rows, messages, skips.
import { parseLineageWeights } from '../../src/export/lineage-weights.js';
import { afterEach, describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../../src/errors.js';
import { exportRun, type ExportRunOptions } from '../../src/export/export-run.js';
import { EXPORT_SCHEMA_VERSION } from '../../src/export/export-schema-version.js';
import type { PolarExportRecord } from '../../src/export/shape-polar-row.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';
import { E } from '../trajectory/chatml-tokens.js';
import { constructedRows, constructedSession, mainRowResponse } from './constructed-session.js';
import { parseJsonl } from './read-exported-rows.js';
import { SEED_TOOLS, seedRun, type SeedSession } from './seed-run.js';

let store: Store;
afterEach(() => store?.close());

async function exportPolar(options: Partial<ExportRunOptions> = {}) {
  let text = '';
  const summary = await exportRun(store, { run: 'run-1', ...options }, (line) => {
    text += line;
  });
  return { records: parseJsonl(text) as PolarExportRecord[], summary };
}

/** One session of one call sampling [7, EOS]. */
function single(instanceId: string, reward: number | null, status: SeedSession['status'] = 'completed'): SeedSession {
  const call: TrajectoryCall = { id: 1, seq: 0, status: 'ok', promptTokenIds: [1, 2], tokenIds: [7, E], logprobs: [-0.5, -0.01], finishReason: 'stop', response: null };
  return { instanceId, status, reward, calls: [call] };
}

describe('exportRun: GRPO groups through the whole export', () => {
  // Task A: rewards 1 (a 4-row session), 0, 0, 0; an infra_error (reward 1, excluded) and an unrewarded one.
  // Task B: a lone sample (advantage 0). Population std of A = sqrt(3)/4.
  const seed = () =>
    seedRun(store, 'run-1', [
      { instanceId: 'a', status: 'completed', reward: 1, calls: constructedSession },
      single('a', 0),
      single('a', 0, 'agent_error'),
      single('a', 0, 'timeout'),
      single('a', 1, 'infra_error'),
      single('a', null),
      single('b', 1),
    ]);
  const std = Math.sqrt(3) / 4;

  it.each([
    ['grpo', 'population', 0.75 / (std + 1e-6), -0.25 / (std + 1e-6)],
    ['grpo', 'sample', 0.75 / (0.5 + 1e-6), -0.25 / (0.5 + 1e-6)],
    ['mean', 'population', 0.75, -0.25],
    ['loo', 'population', 1, -1 / 3],
    ['none', 'population', 0, 0],
  ] as const)('%s (%s std): winner %d, losers %d', async (advantage, stdKind, winner, loser) => {
    store = openStore(':memory:');
    const sessions = seed();
    const { records, summary } = await exportPolar({ advantage, std: stdKind, messages: false });
    const bySession = (index: number) => records.filter((record) => record.session_id === sessions[index]!.sessionId);

    expect(bySession(0)).toHaveLength(4);
    for (const record of bySession(0)) {
      expect(record.advantage).toBeCloseTo(winner, 9);
      expect(record.group_id).toBe('run-1/a');
    }
    // Default lineage weights: the session weighs one sample, shared by its main lineage's rows.
    expect(bySession(0).reduce((sum, record) => sum + record.loss_weight, 0)).toBeCloseTo(1, 12);
    for (const index of [1, 2, 3]) {
      expect(bySession(index).map((record) => [record.advantage, record.loss_weight, record.reward])).toEqual([[expect.closeTo(loser, 9), 1, 0]]);
    }
    expect(bySession(4)).toEqual([]);
    // The unrewarded session: skipped by every estimator but none, which exports it with reward and advantage null.
    const ungraded = advantage === 'none';
    expect(bySession(5).map((record) => [record.reward, record.advantage])).toEqual(ungraded ? [[null, null]] : []);
    expect(bySession(6).map((record) => [record.advantage, record.group_id])).toEqual([[0, 'run-1/b']]);
    expect(summary).toMatchObject({
      records: ungraded ? 9 : 8,
      sessions: { total: 7, exported: ungraded ? 6 : 5, skipped: ungraded ? { 'infra-error': 1 } : { 'infra-error': 1, 'no-reward': 1 } },
      groups: 2,
      calls: { total: ungraded ? 13 : 12, placed: ungraded ? 13 : 12, notTrainable: 0, earlierAttempts: 0 },
    });
  });
});

describe('exportRun: rows of a session with a side call, a compaction and a sub-agent', () => {
  it('prefix_merging: 4 rows from 8 calls, the main row masked exactly; per_request: 8 rows', async () => {
    store = openStore(':memory:');
    const [seeded] = seedRun(store, 'run-1', [{ instanceId: 'a', status: 'completed', reward: 1, calls: constructedSession }]);
    const merged = (await exportPolar({ messages: false })).records;
    expect(merged.map((record) => record.call_ids)).toEqual(constructedRows.map((row) => row.map((index) => seeded!.callIds[index])));
    expect(merged[0]).toMatchObject({ prompt_ids: constructedSession[0]!.promptTokenIds, response_ids: mainRowResponse.ids, loss_mask: mainRowResponse.mask });
    expect(merged[0]!.logprobs.filter((logprob) => logprob !== null)).toEqual([0, 1, 3].flatMap((index) => constructedSession[index]!.logprobs!));
    expect(merged.map((record) => record.row_index)).toEqual([0, 1, 2, 3]);

    const perRequest = (await exportPolar({ builder: 'per_request', messages: false })).records;
    expect(perRequest.map((record) => record.call_ids)).toEqual(seeded!.callIds.map((id) => [id]));
    expect(perRequest.every((record) => record.loss_mask.every((bit) => bit === 1))).toBe(true);
    // Lineages: the main agent (row 0's calls) weighs 1, the side call, compaction and sub-agent 0 by default.
    expect(merged.map((record) => [record.lineage_kind, record.loss_weight])).toEqual([['main', 1], ...merged.slice(1).map((r) => [r.lineage_kind, 0])]);
    expect(new Set(merged.map((record) => record.lineage_id)).size).toBe(4);
    const main = perRequest.filter((record) => record.lineage_kind === 'main');
    expect(main.map((record) => record.call_ids[0])).toEqual(merged[0]!.call_ids);
    expect(main.every((record) => record.loss_weight === 1 / main.length)).toBe(true);
    expect(perRequest.reduce((sum, record) => sum + record.loss_weight, 0)).toBeCloseTo(1, 12);
    const weighted = (await exportPolar({ messages: false, lineageWeights: parseLineageWeights('sub-agent=0.5,side=0.25') })).records;
    expect(weighted.filter((r) => r.lineage_kind !== 'main').every((r) => r.loss_weight === (r.lineage_kind === 'side' ? 0.25 : 0.5))).toBe(true);
  });
});

describe('exportRun: record contents and skips', () => {
  it('polar rows carry the schema, metadata and the messages of their last call', async () => {
    store = openStore(':memory:');
    const [seeded] = seedRun(store, 'run-1', [{ instanceId: 'a', status: 'completed', reward: 1, simulated: true, calls: constructedSession }]);
    const { records } = await exportPolar();
    const main = records[0]!;
    expect(main).toMatchObject({
      schema_version: EXPORT_SCHEMA_VERSION,
      session_id: seeded!.sessionId,
      task_id: 'a',
      run_id: 'run-1',
      sample_index: 0,
      harness: 'pi',
      model: 'Qwen/Qwen3-8B',
      simulated: true,
      builder: 'prefix_merging',
      tools: SEED_TOOLS,
    });
    // The main row ends with call index 3: its request held 3 tool rounds; its own answer closes the messages.
    expect(main.messages).toHaveLength(2 + 3 * 2 + 1);
    expect(main.messages!.at(-1)).toEqual({ role: 'assistant', content: 'answer 3' });
    expect(main.messages![2]).toMatchObject({ role: 'assistant', content: null, tool_calls: [{ function: { name: 'bash' } }] });
  });

  it('refuses to mix simulated and real sessions unless allowMixed', async () => {
    store = openStore(':memory:');
    seedRun(store, 'run-1', [{ ...single('a', 1), simulated: true }, { ...single('a', 0), simulated: false }]);
    await expect(exportPolar()).rejects.toThrow(/run run-1 mixes 1 simulated and 1 real session\(s\)/);
    await expect(exportPolar()).rejects.toBeInstanceOf(UsageError);
    const { summary } = await exportPolar({ allowMixed: true });
    expect(summary.sessions).toMatchObject({ exported: 2, simulated: 1 });
  });

  it('never exports calls of an earlier attempt, and skips unfinished and call-less sessions', async () => {
    store = openStore(':memory:');
    const [retried] = seedRun(store, 'run-1', [
      { instanceId: 'a', status: 'completed', reward: 1, calls: constructedSession.slice(0, 2), earlierAttempt: constructedSession.slice(5, 7) },
      { instanceId: 'a', status: null, calls: constructedSession.slice(0, 1) },
      { instanceId: 'a', status: 'agent_error', reward: 0, calls: [] },
    ]);
    const { records, summary } = await exportPolar({ messages: false });
    expect(records.map((record) => record.call_ids)).toEqual([retried!.callIds]);
    expect(summary.calls).toEqual({ total: 2, placed: 2, notTrainable: 0, earlierAttempts: 2 });
    expect(summary.sessions.skipped).toEqual({ 'not-finished': 1, 'no-trainable-calls': 1 });
  });

  it('sft takes the longest row of an accepted session; swebench-predictions picks the sample', async () => {
    store = openStore(':memory:');
    seedRun(store, 'run-1', [
      { instanceId: 'a', status: 'completed', reward: 1, patch: 'diff-a0', calls: constructedSession },
      { instanceId: 'a', status: 'completed', reward: 0, patch: 'diff-a1', calls: constructedSession.slice(0, 1) },
      { instanceId: 'b', status: 'timeout', reward: 0, patch: null, calls: [] },
    ]);
    const sft = (await exportPolar({ format: 'sft' })).records as unknown as { messages: unknown[]; metadata: { reward: number } }[];
    expect(sft).toHaveLength(1);
    expect(sft[0]!.messages.at(-1)).toEqual({ role: 'assistant', content: 'answer 3' });
    const sample1 = await exportPolar({ format: 'swebench-predictions', sample: 1, modelName: 'qwen3-8b' });
    expect(sample1.records).toEqual([{ instance_id: 'a', model_name_or_path: 'qwen3-8b', model_patch: 'diff-a1' }]);
    expect(sample1.summary.sessions.skipped).toEqual({ 'other-sample': 2 });
    const sample0 = await exportPolar({ format: 'swebench-predictions' });
    expect(sample0.records).toEqual([
      { instance_id: 'a', model_name_or_path: 'polar/run-1', model_patch: 'diff-a0' },
      { instance_id: 'b', model_name_or_path: 'polar/run-1', model_patch: '' },
    ]);
  });

  it('fails with NotFoundError for an unknown run', async () => {
    store = openStore(':memory:');
    await expect(exportRun(store, { run: 'nope' }, () => undefined)).rejects.toThrow(NotFoundError);
  });

  it('waits for an async sink before producing the next line (back-pressure)', async () => {
    store = openStore(':memory:');
    seedRun(store, 'run-1', [{ instanceId: 'a', status: 'completed', reward: 1, calls: constructedSession }]);
    let pending = 0;
    let maxPending = 0;
    await exportRun(store, { run: 'run-1', builder: 'per_request' }, async () => {
      pending++;
      maxPending = Math.max(maxPending, pending);
      await new Promise((resolve) => setTimeout(resolve, 2));
      pending--;
    });
    expect(maxPending).toBe(1);
  });
});
