// The periodic throughput snapshot the rollout scheduler emits next to its RolloutEvents.
import type { SessionStage } from '../store/run-repository.js';

/** A point-in-time view of a running rollout; the scheduler emits one every few seconds. */
export interface RolloutMetricsEvent {
  type: 'metrics';
  /** Wall-clock time of the snapshot (ms since the epoch, `Date.now()`). */
  at: number;
  /** Sessions in each stage; sums to `total`. Authoritative over counts derived from stage events. */
  stageCounts: Record<SessionStage, number>;
  /** Sessions in the run, including those finished before a resume. */
  total: number;
  /** Sessions reaching `done` per minute over the scheduler's recent window. */
  sessionsPerMinute: number;
  /** Completion tokens sampled by the model per second over the recent window. */
  tokensPerSecond: number;
  /** Share of the recent window (0..1) in which at least one model call was in flight. */
  modelBusyFraction: number;
  /** Time-averaged number of model calls in flight over the recent window. */
  meanInFlight: number;
  /** Rewards graded so far: how many, and their mean (null while none is graded). */
  rewards: { n: number; mean: number | null };
}
