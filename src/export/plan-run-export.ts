// Decides, from session metadata alone, which sessions of a run a format exports and their group advantages.
import type { RunSessionSummary } from '../store/run-session-queries.js';
import {
  computeAdvantages,
  type AdvantageEstimator,
  type SessionAdvantage,
  type StdKind,
} from '../trajectory/compute-advantages.js';
import type { ExportFormat } from './export-format.js';

/** Why a session contributes no record. */
export type SessionSkipReason =
  /** The session has no terminal status yet (queued, running, or the run was interrupted). */
  | 'not-finished'
  /** Infrastructure failed: the outcome says nothing about the policy; excluded from groups too. */
  | 'infra-error'
  /**
   * RL and SFT formats: the session was never graded (a `--no-eval` run, a serve batch with `evaluate: false`),
   * so it has no reward. Left out of groups. The RL formats export such sessions with `--advantage none`
   * (reward and advantage null).
   */
  | 'no-reward'
  /** RL and SFT formats: grading was attempted and failed (`eval_error`): no reward, left out of groups. */
  | 'eval-error'
  /** RL and SFT formats: the session has no trainable call, so no row (its reward still counts in its group). */
  | 'no-trainable-calls'
  /** sft: not `completed` with a reward of at least `minReward`. */
  | 'not-accepted'
  /** sft: its request bytes do not parse back into messages. */
  | 'no-conversation'
  /**
   * The session was cancelled (the run was interrupted): its patch and trajectory are partial. RL formats
   * skip it unless it has a reward; swebench-predictions always.
   */
  | 'cancelled'
  /** swebench-predictions: not the selected sample of its task (one prediction per instance). */
  | 'other-sample';

export interface PlanOptions {
  format: ExportFormat;
  advantage: AdvantageEstimator;
  std?: StdKind;
  /** sft: smallest accepted reward. */
  minReward: number;
  /** swebench-predictions: the sample index exported for every task. */
  sample: number;
}

/** What a plan reads of a session: light fields only (no agent log, no patch). */
export type PlannedSession = Pick<
  RunSessionSummary,
  'id' | 'taskId' | 'instanceId' | 'sampleIndex' | 'simulated' | 'status' | 'statusReason' | 'reward' | 'firstCallSeq' | 'timings'
>;

/** A session's reward and advantage as its rows carry them: both null for an ungraded session under `none`. */
export interface SessionScore {
  reward: number | null;
  advantage: number | null;
}

export interface SessionPlan {
  session: PlannedSession;
  /** `<run name>/<instance id>`: the samples of one task. */
  groupId: string;
  /** Null when the session is skipped (reason in `skip`). */
  skip: SessionSkipReason | null;
  /** RL formats: the reward and advantage of an exported session; null when skipped (or another format). */
  score: SessionScore | null;
}

/**
 * One plan per session, in the order given. For the RL formats (polar, verl, openrlhf) the group of a task
 * is its sessions minus infra_error and unrewarded ones (see `computeAdvantages`); a group of one, or of equal
 * rewards, has advantage 0. With the `none` estimator a session that was never graded (its status says the
 * agent ran to an end: completed, agent_error, timeout) is exported with reward and advantage null; an
 * `eval_error` session (grading failed) and a cancelled one without a reward stay skipped with their reason.
 * Loss weights are set later, once the session's rows are known.
 */
export function planRunExport(runName: string, sessions: readonly PlannedSession[], options: PlanOptions): SessionPlan[] {
  const groupIds = groupIdsOf(runName, sessions);
  const advantages = rlFormat(options.format) ? advantagesBySession(sessions, groupIds, options) : new Map<number, SessionAdvantage>();
  return sessions.map((session) => {
    const groupId = groupIds.get(session.taskId)!;
    const skip = skipReason(session, options, advantages);
    return { session, groupId, skip, score: skip === null && rlFormat(options.format) ? scoreOf(advantages.get(session.id)) : null };
  });
}

function scoreOf(advantage: SessionAdvantage | undefined): SessionScore {
  return advantage === undefined ? { reward: null, advantage: null } : { reward: advantage.reward, advantage: advantage.advantage };
}

function rlFormat(format: ExportFormat): boolean {
  return format === 'polar' || format === 'verl' || format === 'openrlhf';
}

function skipReason(
  session: PlannedSession,
  options: PlanOptions,
  advantages: ReadonlyMap<number, SessionAdvantage>,
): SessionSkipReason | null {
  if (session.status === null) return 'not-finished';
  if (session.status === 'infra_error') return 'infra-error';
  switch (options.format) {
    case 'polar':
    case 'verl':
    case 'openrlhf':
      if (advantages.has(session.id)) return null;
      if (session.status === 'eval_error') return 'eval-error';
      if (session.status === 'cancelled') return 'cancelled';
      return options.advantage === 'none' ? null : 'no-reward';
    case 'sft':
      if (session.status === 'eval_error') return 'eval-error';
      if (session.reward === null) return 'no-reward';
      return session.status === 'completed' && session.reward >= options.minReward ? null : 'not-accepted';
    case 'swebench-predictions':
      if (session.status === 'cancelled') return 'cancelled';
      return session.sampleIndex === options.sample ? null : 'other-sample';
    default: {
      const unknown: never = options.format;
      return unknown;
    }
  }
}

function advantagesBySession(
  sessions: readonly PlannedSession[],
  groupIds: ReadonlyMap<number, string>,
  options: PlanOptions,
): Map<number, SessionAdvantage> {
  const finished = sessions.filter((session) => session.status !== null);
  const result = computeAdvantages(
    finished.map((session) => ({
      sessionId: session.id,
      groupId: groupIds.get(session.taskId)!,
      status: session.status!,
      reward: session.reward,
      rowCount: 1,
    })),
    { estimator: options.advantage, ...(options.std === undefined ? {} : { std: options.std }) },
  );
  return new Map(result.sessions.map((advantage) => [advantage.sessionId, advantage]));
}

/** `<run>/<instance id>` per task; a task whose instance id repeats in the run gets `#<task id>` appended. */
function groupIdsOf(runName: string, sessions: readonly PlannedSession[]): Map<number, string> {
  const tasksByInstance = new Map<string, Set<number>>();
  for (const session of sessions) {
    const tasks = tasksByInstance.get(session.instanceId) ?? new Set<number>();
    tasks.add(session.taskId);
    tasksByInstance.set(session.instanceId, tasks);
  }
  const ids = new Map<number, string>();
  for (const session of sessions) {
    const unique = tasksByInstance.get(session.instanceId)!.size === 1;
    ids.set(session.taskId, `${runName}/${session.instanceId}${unique ? '' : `#${session.taskId}`}`);
  }
  return ids;
}
