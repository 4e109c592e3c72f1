// Streams a run as JSONL records, session by session: read calls, build rows, score, shape, hand each line on.
import { NotFoundError } from '../errors.js';
import type { Store } from '../store/open-store.js';
import type { RunRow } from '../store/run-repository.js';
import type { StoredCall } from '../store/stored-call.js';
import { buildPrefixMerging } from '../trajectory/build-prefix-merging.js';
import { buildTrajectory } from '../trajectory/build-trajectory.js';
import { labelSideCalls, lineageByCall } from '../trajectory/lineage.js';
import { traceStepsOf } from '../trajectory/trace-steps.js';
import type { AdvantageEstimator, StdKind } from '../trajectory/compute-advantages.js';
import type { BuilderOptions } from '../trajectory/trajectory-call.js';
import type { TrajectoryBuild, TrajectoryBuilderName, TrajectoryRow } from '../trajectory/trajectory-row.js';
import { checkExportPlans } from './check-export-plans.js';
import { rowPolicyVersions, type SessionExportMeta } from './export-row-input.js';
import { shapeExportRow, type ExportFormat } from './export-format.js';
import { EXPORT_SCHEMA_VERSION } from './export-schema-version.js';
import { DEFAULT_LINEAGE_WEIGHTS, lineageRowWeight, type LineageWeights } from './lineage-weights.js';
import { planRunExport, type PlannedSession, type SessionPlan, type SessionSkipReason } from './plan-run-export.js';
import { readCallConversation } from './read-call-conversation.js';
import { rowSampling } from './row-sampling.js';
import { rowCapture } from './row-capture.js';
import { ROW_TIMING_PHASES, rowCallTimings, sessionStageTimings } from './row-timings.js';
import { shapeSftRecord } from './shape-sft-record.js';
import { shapeSwebenchPrediction } from './shape-swebench-prediction.js';
import { toJsonlLine } from './to-jsonl-line.js';
import { toTrajectoryCall } from './to-trajectory-call.js';
import { requestSideCallKind } from './request-side-call-kind.js';

export interface ExportRunOptions {
  /** Run name or id. */
  run: string;
  /** Default `prefix_merging`. */
  builder?: TrajectoryBuilderName;
  /** Default `polar`. */
  format?: ExportFormat;
  /** Default `grpo`. */
  advantage?: AdvantageEstimator;
  /** Std of `grpo` (default `population`; `sample` matches verl and OpenRLHF). */
  std?: StdKind;
  /** polar format: include each row's chat messages and tools (default true; costs a parse per row). */
  messages?: boolean;
  /** sft: smallest reward of an accepted session (default 1: resolved). */
  minReward?: number;
  /** swebench-predictions: the sample of each task to export (default 0). */
  sample?: number;
  /** swebench-predictions `model_name_or_path` (default `polar/<run name>`). */
  modelName?: string;
  builderOptions?: Partial<BuilderOptions>;
  /** Export a run whose sessions mix polar's simulator and a real upstream (refused by default). */
  allowMixed?: boolean;
  /** Loss weight per lineage kind (default: main 1, side calls and sub-agents 0). */
  lineageWeights?: LineageWeights;
  /** Only the sessions of these tasks (whole groups; `polar serve` streams completed groups). */
  taskIds?: ReadonlySet<number>;
}

/** Receives one JSON line (with its newline); a returned promise is awaited (back-pressure). */
export type LineSink = (line: string) => void | Promise<void>;

export interface ExportSummary {
  schemaVersion: typeof EXPORT_SCHEMA_VERSION;
  run: string;
  format: ExportFormat;
  builder: TrajectoryBuilderName;
  advantage: AdvantageEstimator;
  /** Lines written. */
  records: number;
  /** UTF-8 bytes written. */
  bytes: number;
  sessions: {
    total: number;
    exported: number;
    skipped: Partial<Record<SessionSkipReason, number>>;
    /** Exported sessions served by polar's simulator (their records carry `simulated: true`). */
    simulated: number;
  };
  /**
   * Calls of exported sessions' current attempt: placed in rows (mask 1) or never trainable (RL formats),
   * and calls of earlier attempts, which are never exported.
   */
  calls: { total: number; placed: number; notTrainable: number; earlierAttempts: number };
  /** Groups (tasks) with at least one exported session. */
  groups: number;
}

/** A run's export, planned and checked: nothing written yet (`writeExport` writes it). */
export interface PreparedExport {
  run: RunRow;
  options: ExportRunOptions;
  format: ExportFormat;
  builder: TrajectoryBuilderName;
  advantage: AdvantageEstimator;
  plans: SessionPlan[];
}

/**
 * Plans one run's export from its light session list and refuses what cannot be exported, before any line
 * is written (so `polar serve` answers a refusal as an HTTP error). Throws NotFoundError for an unknown run,
 * UsageError for a mix of simulated and real sessions, MissingRewardError where rewards are missing
 * (check-export-plans.ts).
 */
export function prepareExport(store: Pick<Store, 'runs'>, options: ExportRunOptions): PreparedExport {
  const run = store.runs.get(options.run);
  if (run === undefined) {
    throw new NotFoundError(`no run "${options.run}" to export`, 'List the runs with: polar runs list');
  }
  const format = options.format ?? 'polar';
  const builder = options.builder ?? 'prefix_merging';
  const advantage = options.advantage ?? 'grpo';
  // Only what the plan needs, taken from light summaries a page at a time (never all summaries at once: their
  // timings and evaluation reports made the peak grow with the run); calls are read one session at a time.
  const planned: PlannedSession[] = [];
  for (const session of store.runs.iterateSessionSummaries(run.id)) {
    if (options.taskIds === undefined || options.taskIds.has(session.taskId)) planned.push(plannedSession(session));
  }
  const plans = planRunExport(run.name, planned, {
    format,
    advantage,
    ...(options.std === undefined ? {} : { std: options.std }),
    minReward: options.minReward ?? 1,
    sample: options.sample ?? 0,
  });
  checkExportPlans(run.name, plans, { format, advantage, allowMixed: options.allowMixed ?? false });
  return { run, options, format, builder, advantage, plans };
}

/**
 * Exports one run. Sessions are read and written one at a time, so memory holds one session's calls
 * (plus the run's light session list: ids, statuses and rewards, never agent logs or patches). Throws what
 * `prepareExport` throws, DataError for non-finite numbers, and whatever the sink throws.
 */
export async function exportRun(store: Pick<Store, 'runs' | 'calls'>, options: ExportRunOptions, sink: LineSink): Promise<ExportSummary> {
  return writeExport(store, prepareExport(store, options), sink);
}

/** Writes a prepared export, session by session. */
export async function writeExport(store: Pick<Store, 'runs' | 'calls'>, prepared: PreparedExport, sink: LineSink): Promise<ExportSummary> {
  const { run, options, format, builder, advantage, plans } = prepared;
  const summary: ExportSummary = {
    schemaVersion: EXPORT_SCHEMA_VERSION,
    run: run.name,
    format,
    builder,
    advantage,
    records: 0,
    bytes: 0,
    sessions: { total: plans.length, exported: 0, skipped: {}, simulated: 0 },
    calls: { total: 0, placed: 0, notTrainable: 0, earlierAttempts: 0 },
    groups: 0,
  };
  const groups = new Set<string>();
  const write = async (record: object): Promise<void> => {
    const line = toJsonlLine(record);
    summary.records++;
    summary.bytes += Buffer.byteLength(line);
    await sink(line);
  };
  const context: SessionContext = { store, run, options, format, builder, write };

  for (const plan of plans) {
    const skip = plan.skip ?? (await exportSession(context, plan, summary));
    if (skip !== null) {
      summary.sessions.skipped[skip] = (summary.sessions.skipped[skip] ?? 0) + 1;
      continue;
    }
    summary.sessions.exported++;
    if (plan.session.simulated) summary.sessions.simulated++;
    groups.add(plan.groupId);
  }
  summary.groups = groups.size;
  return summary;
}

interface SessionContext {
  store: Pick<Store, 'runs' | 'calls'>;
  run: RunRow;
  options: ExportRunOptions;
  format: ExportFormat;
  builder: TrajectoryBuilderName;
  write: (record: object) => Promise<void>;
}

/** Writes one session's records; returns why it wrote none, or null. */
async function exportSession(context: SessionContext, plan: SessionPlan, summary: ExportSummary): Promise<SessionSkipReason | null> {
  const { store, run, options, format, write } = context;
  const { session } = plan;
  if (format === 'swebench-predictions') {
    const modelNameOrPath = options.modelName ?? `polar/${run.name}`;
    const patch = store.runs.sessionPatch(session.id) ?? null;
    await write(shapeSwebenchPrediction({ instanceId: session.instanceId, modelNameOrPath, patch }));
    return null;
  }

  const withMessages = format === 'polar' && options.messages !== false;
  // Calls of earlier attempts (infrastructure retries, resumed crashes) are kept in the store, never trained on.
  // Read without raw bytes: only the last call of each row has its request bytes decoded, below.
  const all = store.calls.listBySession(session.id);
  const stored = all.filter((call) => call.seq >= session.firstCallSeq);
  summary.calls.earlierAttempts += all.length - stored.length;
  const trajectoryCalls = stored.map(toTrajectoryCall);
  const build = buildTrajectory(context.builder, session.id, trajectoryCalls, options.builderOptions);
  const byId = new Map(stored.map((call) => [call.id, call]));
  const meta = sessionMeta(run, plan, stored);

  if (build.rows.length === 0) return 'no-trainable-calls';
  if (format === 'sft') {
    // Only the last call of the longest row is rendered: read its raw bytes alone, not every call's.
    const last = longestRow(build.rows)?.callIds.at(-1);
    const call = last === undefined ? undefined : store.calls.get(last, { withRaw: true });
    const conversation = call === undefined ? null : readCallConversation(call);
    if (conversation === null) return 'no-conversation';
    await write(
      shapeSftRecord({
        sessionId: session.id,
        groupId: plan.groupId,
        reward: session.reward!,
        session: meta,
        messages: conversation.messages,
        tools: conversation.tools,
      }),
    );
    return null;
  }

  countCalls(summary, build, stored.length);
  const score = plan.score!;
  const lineages = lineageByCall(context.builder === 'prefix_merging' ? build : buildPrefixMerging(session.id, trajectoryCalls, options.builderOptions));
  // Request bytes are decoded for two kinds of call only, in one pass: the first call of each non-main lineage
  // (title, quota and summary calls are recognised by their request) and, for messages, each row's last call.
  const sideFirsts = [...new Set(lineages.values())].flatMap((lineage) => (lineage.kind === 'main' ? [] : lineage.callIds.slice(0, 1)));
  const raws = store.calls.rawOf([...sideFirsts, ...(withMessages ? build.rows.map((row) => row.callIds.at(-1)!) : [])]);
  const withRawOf = (callId: number): StoredCall | undefined => {
    const call = byId.get(callId);
    const raw = raws.get(callId);
    return call === undefined || raw === undefined ? call : { ...call, raw };
  };
  labelSideCalls(new Set(lineages.values()), (callId) => requestSideCallKind(withRawOf(callId)));
  const weights = options.lineageWeights ?? DEFAULT_LINEAGE_WEIGHTS;
  const rowLineage = (row: (typeof build.rows)[number]) => lineages.get(row.callIds[0]!) ?? null;
  const rowsPerLineage = new Map<number, number>();
  for (const row of build.rows) {
    const lineage = rowLineage(row);
    if (lineage) rowsPerLineage.set(lineage.id, (rowsPerLineage.get(lineage.id) ?? 0) + 1);
  }
  const steps = traceStepsOf(session.id, build.rows, (callId) => lineages.get(callId)?.id, trajectoryCalls);
  const callTimings = rowCallTimings(build.rows, steps, stored);
  const stageTimings = sessionStageTimings(session.timings);
  for (const [index, row] of build.rows.entries()) {
    const lineage = rowLineage(row);
    const calls = row.callIds.map((id) => byId.get(id));
    const conversation = withMessages ? readCallConversation(withRawOf(row.callIds.at(-1)!)!) : null;
    await write(
      shapeExportRow(format, {
        row,
        reward: score.reward,
        advantage: score.advantage,
        lossWeight: lineageRowWeight(weights, lineage?.kind ?? null, lineage ? (rowsPerLineage.get(lineage.id) ?? 0) : 0, build.rows.length),
        lineage: lineage ? { id: lineage.id, kind: lineage.kind } : null,
        trace: steps[index]!,
        policyVersions: rowPolicyVersions(row, calls),
        stopReason: calls.at(-1)?.capture.finishReason ?? null,
        sampling: rowSampling(calls),
        capture: rowCapture(calls),
        timings: { ...stageTimings, ...callTimings[index]! },
        groupId: plan.groupId,
        session: meta,
        messages: conversation?.messages ?? null,
        tools: conversation?.tools ?? null,
      }),
    );
  }
  return null;
}

/**
 * Keeps only what the plan and the rows need, so the evaluation objects of 8,000 sessions are not held
 * (of the timings, only the stages rows report).
 */
function plannedSession(session: PlannedSession): PlannedSession {
  const { id, taskId, instanceId, sampleIndex, simulated, status, statusReason, reward, firstCallSeq } = session;
  const timings: Record<string, number> = {};
  for (const phase of ROW_TIMING_PHASES) if (session.timings[phase] !== undefined) timings[phase] = session.timings[phase];
  return { id, taskId, instanceId, sampleIndex, simulated, status, statusReason, reward, firstCallSeq, timings };
}

function sessionMeta(run: RunRow, plan: SessionPlan, calls: readonly StoredCall[]): SessionExportMeta {
  const first = calls.find((call) => call.upstreamModel !== null);
  return {
    runId: run.name,
    taskId: plan.session.instanceId,
    sampleIndex: plan.session.sampleIndex,
    harness: run.harness,
    model: first?.upstreamModel ?? null,
    simulated: plan.session.simulated,
    // Exported sessions are finished (not-finished ones are skipped by the plan).
    status: plan.session.status!,
    statusReason: plan.session.statusReason,
  };
}

/** The row with the most tokens (the main agent's conversation); the first on ties. */
function longestRow(rows: readonly TrajectoryRow[]): TrajectoryRow | undefined {
  let best: TrajectoryRow | undefined;
  for (const row of rows) {
    const length = row.promptIds.length + row.responseIds.length;
    if (best === undefined || length > best.promptIds.length + best.responseIds.length) best = row;
  }
  return best;
}

function countCalls(summary: ExportSummary, build: TrajectoryBuild, calls: number): void {
  summary.calls.total += calls;
  summary.calls.placed += build.turns.length;
  summary.calls.notTrainable += build.diagnostics.splits.filter((split) => split.reason.kind === 'not-trainable').length;
}
