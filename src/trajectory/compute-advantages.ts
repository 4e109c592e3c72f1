// GRPO-style group advantages over sessions (the samples of one task) and per-row loss weights.
import { DataError } from '../errors.js';

/**
 * How a session's advantage is computed from its group's rewards.
 * - `grpo`: (r - mean) / (std + epsilon)
 * - `mean`: r - mean (Dr. GRPO / REINFORCE++-baseline: no std division)
 * - `loo`: r - mean of the other samples (RLOO; equals n/(n-1) * (r - mean))
 * - `none`: 0 (export rewards only; the trainer computes its own advantages)
 */
export type AdvantageEstimator = 'grpo' | 'mean' | 'loo' | 'none';

export const ADVANTAGE_ESTIMATORS: readonly AdvantageEstimator[] = ['grpo', 'mean', 'loo', 'none'];

/**
 * Which standard deviation `grpo` divides by. polar defaults to `population` (divide by n).
 * verl (`compute_grpo_outcome_advantage`, epsilon 1e-6) and OpenRLHF (`group_norm`, epsilon 1e-9) both
 * call `torch.std`, which is the `sample` std (Bessel, n - 1); pick `sample` to match them exactly.
 */
export type StdKind = 'population' | 'sample';

/** Terminal session statuses (DESIGN §6). */
export type SessionTerminalStatus =
  | 'completed'
  | 'agent_error'
  | 'timeout'
  | 'infra_error'
  | 'eval_error'
  | 'cancelled';

export interface AdvantageInput {
  sessionId: number;
  /** The group: all samples of one task in one run. */
  groupId: string;
  status: SessionTerminalStatus;
  /** The evaluated reward; null when the session was not evaluated. */
  reward: number | null;
  /** How many rows the session exports as; sets its loss weight. */
  rowCount: number;
}

export interface AdvantageOptions {
  estimator: AdvantageEstimator;
  /** Default `population`. */
  std?: StdKind;
  /** Added to the std in `grpo`; default 1e-6 (verl's value). */
  epsilon?: number;
}

export interface GroupStats {
  /** Samples in the group after exclusions. */
  size: number;
  mean: number;
  std: number;
}

export interface SessionAdvantage {
  sessionId: number;
  groupId: string;
  reward: number;
  advantage: number;
  /** 1 / rowCount, so a session exported as several rows weighs as one session; 0 without rows. */
  lossWeight: number;
  group: GroupStats;
}

export type ExclusionReason =
  /** Infrastructure failed: the reward says nothing about the policy (DESIGN §6). */
  | 'infra-error'
  /** No reward was recorded (not evaluated, evaluation failed, cancelled). */
  | 'no-reward';

export interface ExcludedSession {
  sessionId: number;
  groupId: string;
  reason: ExclusionReason;
}

export interface AdvantageResult {
  /** In input order, without excluded sessions. */
  sessions: SessionAdvantage[];
  excluded: ExcludedSession[];
}

export const DEFAULT_ADVANTAGE_EPSILON = 1e-6;

/**
 * Computes one advantage per session within its group. Excluded sessions (infra_error, no reward) are
 * left out of the group statistics and get no advantage. A group whose rewards are all equal (including
 * a group of one) gets advantage 0 for every member; this differs from verl, which gives a lone sample
 * r / (1 + epsilon). Throws DataError on a non-finite reward, a negative row count or a repeated session.
 */
export function computeAdvantages(inputs: readonly AdvantageInput[], options: AdvantageOptions): AdvantageResult {
  const epsilon = options.epsilon ?? DEFAULT_ADVANTAGE_EPSILON;
  const stdKind = options.std ?? 'population';
  const excluded: ExcludedSession[] = [];
  const groups = new Map<string, number[]>();
  const included: { input: AdvantageInput; reward: number }[] = [];
  const seen = new Set<number>();

  for (const input of inputs) {
    if (seen.has(input.sessionId)) {
      throw new DataError(`Session ${input.sessionId} appears twice in the advantage input.`);
    }
    seen.add(input.sessionId);
    if (!Number.isInteger(input.rowCount) || input.rowCount < 0) {
      throw new DataError(`Session ${input.sessionId} has an invalid row count ${input.rowCount}.`);
    }
    const reason = exclusionReason(input);
    if (reason) {
      excluded.push({ sessionId: input.sessionId, groupId: input.groupId, reason });
      continue;
    }
    const reward = input.reward!;
    if (!Number.isFinite(reward)) {
      throw new DataError(
        `Session ${input.sessionId} has a non-finite reward (${reward}).`,
        'Rewards must be finite numbers; re-run the evaluation for this session.',
      );
    }
    included.push({ input, reward });
    const rewards = groups.get(input.groupId) ?? [];
    rewards.push(reward);
    groups.set(input.groupId, rewards);
  }

  const stats = new Map([...groups].map(([groupId, rewards]) => [groupId, groupStats(rewards, stdKind)]));
  const sessions = included.map(({ input, reward }): SessionAdvantage => {
    const group = stats.get(input.groupId)!;
    const rewards = groups.get(input.groupId)!;
    return {
      sessionId: input.sessionId,
      groupId: input.groupId,
      reward,
      advantage: advantage(reward, rewards, group, options.estimator, epsilon),
      lossWeight: input.rowCount > 0 ? 1 / input.rowCount : 0,
      group,
    };
  });
  return { sessions, excluded };
}

function exclusionReason(input: AdvantageInput): ExclusionReason | null {
  if (input.status === 'infra_error') return 'infra-error';
  if (input.reward === null) return 'no-reward';
  return null;
}

function groupStats(rewards: readonly number[], stdKind: StdKind): GroupStats {
  const size = rewards.length;
  const mean = rewards.reduce((sum, r) => sum + r, 0) / size;
  const squares = rewards.reduce((sum, r) => sum + (r - mean) ** 2, 0);
  const divisor = stdKind === 'population' ? size : size - 1;
  const std = divisor > 0 ? Math.sqrt(squares / divisor) : 0;
  return { size, mean, std };
}

function advantage(
  reward: number,
  rewards: readonly number[],
  group: GroupStats,
  estimator: AdvantageEstimator,
  epsilon: number,
): number {
  // Exact check: floating-point means of equal rewards need not cancel to 0.
  if (rewards.every((r) => r === rewards[0])) return 0;
  switch (estimator) {
    case 'grpo':
      return (reward - group.mean) / (group.std + epsilon);
    case 'mean':
      return reward - group.mean;
    case 'loo':
      return reward - (group.mean * group.size - reward) / (group.size - 1);
    case 'none':
      return 0;
    default: {
      const unknown: never = estimator;
      throw new DataError(`Unknown advantage estimator: ${String(unknown)}`);
    }
  }
}
