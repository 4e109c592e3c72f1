// Property tests through the store and back from JSONL: every builder x format keeps every sampled token exactly once.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { MissingRewardError } from '../../src/errors.js';
import { ROW_EXPORT_FORMATS, type RowExportFormat } from '../../src/export/export-format.js';
import { exportRun } from '../../src/export/export-run.js';
import type { SftExportRecord } from '../../src/export/shape-sft-record.js';
import type { SwebenchPrediction } from '../../src/export/shape-swebench-prediction.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import type { SessionStatus } from '../../src/store/run-repository.js';
import { checkTrainable } from '../../src/trajectory/check-trainable.js';
import type { AdvantageEstimator } from '../../src/trajectory/compute-advantages.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';
import { TRAJECTORY_BUILDERS, type TrajectoryBuilderName } from '../../src/trajectory/trajectory-row.js';
import { sessionArbitrary } from '../trajectory/session-arbitrary.js';
import { parseJsonl, readExportedRow, type ExportedRow } from './read-exported-rows.js';
import { seedRun, type SeedSession, type SeededSession } from './seed-run.js';

const RUNS = { numRuns: 40 };

/** The store keeps one policy version per call (no per-token versions yet), so seeded calls carry only that. */
const storable = (calls: TrajectoryCall[]): TrajectoryCall[] => calls.map(({ tokenVersions: _perToken, ...call }) => call);

const sessionSpec: fc.Arbitrary<SeedSession> = fc.record({
  instanceId: fc.constantFrom('repo__a-1', 'repo__b-2'),
  status: fc.constantFrom<SessionStatus | null>('completed', 'completed', 'agent_error', 'timeout', 'infra_error', 'eval_error', 'cancelled', null),
  reward: fc.constantFrom<number | null>(0, 1, 1, null),
  simulated: fc.boolean(),
  patch: fc.constantFrom<string | null>(null, 'diff --git a/x b/x\n'),
  calls: sessionArbitrary.map(storable),
  earlierAttempt: fc.option(sessionArbitrary.map((calls) => storable(calls.slice(0, 3))), { nil: undefined }),
});

const runSpec = fc.array(sessionSpec, { minLength: 1, maxLength: 4 });

let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
});

async function exportLines(seeded: Store, options: Parameters<typeof exportRun>[1]) {
  let text = '';
  // Token fidelity is what is tested here; runs mixing simulated and real sessions are allowed on purpose.
  const summary = await exportRun(seeded, { allowMixed: true, ...options }, (line) => {
    text += line;
  });
  expect(summary.records).toBe(parseJsonl(text).length);
  expect(summary.bytes).toBe(Buffer.byteLength(text));
  return { records: parseJsonl(text), summary };
}

function trainableIndexes(calls: readonly TrajectoryCall[]): number[] {
  return calls.flatMap((call, index) => (checkTrainable(call).trainable ? [index] : []));
}

/** Sessions the agent ran to an end but nobody graded: exported with reward null under `none` only. */
function ungraded(session: SeededSession): boolean {
  const { status, reward } = session.spec;
  return (reward === null || reward === undefined) && (status === 'completed' || status === 'agent_error' || status === 'timeout');
}

/** Sessions an RL format plans to export (before looking at calls): finished, not infra, rewarded (or ungraded under none). */
function rlPlanned(session: SeededSession, advantage: AdvantageEstimator): boolean {
  const { status, reward } = session.spec;
  if (status === null || status === 'infra_error') return false;
  return (reward !== null && reward !== undefined) || (advantage === 'none' && ungraded(session));
}

/** Sessions an RL format must export rows of: planned, with a trainable call. */
function rlExported(session: SeededSession, advantage: AdvantageEstimator): boolean {
  return rlPlanned(session, advantage) && trainableIndexes(session.spec.calls).length > 0;
}

/** The refusal the export must answer with instead of rows, or null. */
function expectedRefusal(sessions: readonly SeededSession[], format: RowExportFormat, advantage: AdvantageEstimator): RegExp | null {
  const planned = sessions.filter((session) => rlPlanned(session, advantage));
  if (format === 'openrlhf' && planned.some((session) => session.spec.reward == null)) return /openrlhf records need one/;
  if (advantage !== 'none' && planned.length === 0 && sessions.some(ungraded)) return /--advantage none/;
  return null;
}

function checkRlExport(sessions: readonly SeededSession[], rows: readonly ExportedRow[], builder: TrajectoryBuilderName, advantage: AdvantageEstimator): void {
  const exported = sessions.filter((session) => rlExported(session, advantage));
  const bySession = new Map<number, ExportedRow[]>();
  for (const row of rows) bySession.set(row.sessionId, [...(bySession.get(row.sessionId) ?? []), row]);
  expect([...bySession.keys()].sort((a, b) => a - b)).toEqual(exported.map((s) => s.sessionId));
  for (const session of exported) {
    const sessionRows = bySession.get(session.sessionId)!;
    const trainable = trainableIndexes(session.spec.calls);
    // Every trainable call of the current attempt appears exactly once; nothing else does.
    const placed = sessionRows.flatMap((row) => row.callIds);
    expect([...placed].sort((a, b) => a - b)).toEqual(trainable.map((index) => session.callIds[index]));
    if (builder === 'per_request') {
      expect(sessionRows.length).toBe(trainable.length);
      expect(sessionRows.every((row) => row.callIds.length === 1 && row.maskedCount >= 0)).toBe(true);
    }
    // Default lineage weights: the session weighs one sample (its main lineage), whatever its rows.
    if (sessionRows.length > 0) expect(sessionRows.reduce((sum, row) => sum + row.lossWeight, 0)).toBeCloseTo(1, 12);
    checkTraces(sessionRows, session);
    for (const row of sessionRows) {
      // The row's mask-1 tokens are exactly its calls' sampled tokens and logprobs, in order.
      const calls = row.callIds.map((id) => session.spec.calls[session.callIds.indexOf(id)]!);
      expect(row.trainedIds).toEqual(calls.flatMap((call) => call.tokenIds!));
      expect(row.trainedLogprobs).toEqual(calls.flatMap((call) => call.logprobs!));
      expect(row.lossWeight).toBeGreaterThanOrEqual(0);
      expect(row.reward).toBe(session.spec.reward ?? null);
      expect(row.advantage === null).toBe(row.reward === null);
      expect(row.simulated).toBe(session.spec.simulated);
      expect(row.builder).toBe(builder);
      expect(row.stopReason).toBe(calls.at(-1)!.finishReason);
    }
  }
}

/** Each trace's steps are 0..n-1, exactly one is the last, and it holds the trace's last call. */
function checkTraces(rows: readonly ExportedRow[], session: SeededSession): void {
  const traces = new Map<string, ExportedRow[]>();
  for (const row of rows) traces.set(row.traceId, [...(traces.get(row.traceId) ?? []), row]);
  for (const [traceId, traceRows] of traces) {
    expect(traceId.startsWith(`${session.sessionId}:`)).toBe(true);
    expect(traceRows.map((row) => row.stepIndex).sort((a, b) => a - b)).toEqual(traceRows.map((_, i) => i));
    const last = traceRows.filter((row) => row.isLastStep);
    expect(last).toHaveLength(1);
    expect(last[0]!.stepIndex).toBe(traceRows.length - 1);
    const position = (callId: number) => session.callIds.indexOf(callId);
    const lastCall = Math.max(...traceRows.flatMap((row) => row.callIds.map(position)));
    expect(last[0]!.callIds.map(position)).toContain(lastCall);
  }
}

describe('exportRun: token fidelity of every builder and row format (JSONL read back)', () => {
  const combos = TRAJECTORY_BUILDERS.flatMap((builder) => ROW_EXPORT_FORMATS.flatMap((format) => (['grpo', 'none'] as const).map((advantage) => [builder, format, advantage] as const)));
  it.each(combos)('%s / %s / %s', async (builder: TrajectoryBuilderName, format: RowExportFormat, advantage: AdvantageEstimator) => {
    await fc.assert(
      fc.asyncProperty(runSpec, async (specs) => {
        store?.close();
        store = openStore(':memory:');
        const sessions = seedRun(store, 'run-p', specs);
        const options = { run: 'run-p', builder, format, advantage, messages: false };
        const refusal = expectedRefusal(sessions, format, advantage);
        if (refusal !== null) {
          await expect(exportLines(store, options)).rejects.toThrow(refusal);
          await expect(exportLines(store, options)).rejects.toBeInstanceOf(MissingRewardError);
          return;
        }
        const { records, summary } = await exportLines(store, options);
        const rows = records.map((record) => readExportedRow(format, record));
        checkRlExport(sessions, rows, builder, advantage);
        expect(summary.sessions.exported).toBe(sessions.filter((session) => rlExported(session, advantage)).length);
        expect(summary.sessions.exported + Object.values(summary.sessions.skipped).reduce((a, b) => a + b, 0)).toBe(sessions.length);
      }),
      RUNS,
    );
  });
});

describe('exportRun: sft and swebench-predictions over random runs', () => {
  it('sft: one record per completed session with reward >= 1 and a trainable call, ending with an assistant turn', async () => {
    await fc.assert(
      fc.asyncProperty(runSpec, async (specs) => {
        store?.close();
        store = openStore(':memory:');
        const sessions = seedRun(store, 'run-s', specs);
        const { records } = await exportLines(store, { run: 'run-s', format: 'sft' });
        const accepted = sessions.filter((s) => s.spec.status === 'completed' && s.spec.reward === 1 && trainableIndexes(s.spec.calls).length > 0);
        const sft = records as SftExportRecord[];
        expect(sft.map((record) => record.metadata.session_id).sort((a, b) => a - b)).toEqual(accepted.map((s) => s.sessionId));
        for (const record of sft) {
          expect(record.messages.at(-1)).toMatchObject({ role: 'assistant' });
          expect(record.tools).toHaveLength(1);
        }
      }),
      RUNS,
    );
  });

  it('swebench-predictions: one per finished, not infra, not cancelled session of sample 0', async () => {
    await fc.assert(
      fc.asyncProperty(runSpec, async (specs) => {
        store?.close();
        store = openStore(':memory:');
        const sessions = seedRun(store, 'run-w', specs);
        const { records } = await exportLines(store, { run: 'run-w', format: 'swebench-predictions' });
        const firstSamples = sessions.filter((s) => s.spec.status !== null && s.spec.status !== 'infra_error' && s.spec.status !== 'cancelled' && store!.runs.session(s.sessionId)!.sampleIndex === 0);
        const byInstance = (a: SwebenchPrediction, b: SwebenchPrediction) => a.instance_id.localeCompare(b.instance_id);
        expect([...(records as SwebenchPrediction[])].sort(byInstance)).toEqual(
          firstSamples.map((s) => ({ instance_id: s.spec.instanceId, model_name_or_path: 'polar/run-w', model_patch: s.spec.patch ?? '' })).sort(byInstance),
        );
      }),
      RUNS,
    );
  });
});
