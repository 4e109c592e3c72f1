// The periodic throughput snapshot the rollout scheduler emits next to its RolloutEvents.
import type { SessionStage } from '../store/run-repository.js';
import type { CeilingSource } from '../upstream/metrics/engine-ceiling.js';
import type { UtilisationUnknownCode } from '../upstream/metrics/utilisation-unknown.js';

/** The engines behind a run at a snapshot, from their /metrics (engine-metrics-poller.ts). */
export interface RolloutEngineMetrics {
  /** Replicas polled, and how many answered their last scrape. */
  replicas: number;
  reporting: number;
  /** Summed over the replicas at the last poll; KV usage (0..1) is their mean. */
  running: number | null;
  waiting: number | null;
  kvUsage: number | null;
  /** Tokens/s over the last ~10 s: prompt (cached included), generated, processed (computed prompt + generated). */
  promptTokensPerSecond: number | null;
  generationTokensPerSecond: number | null;
  processedTokensPerSecond: number | null;
  /** Over the run so far: preemptions, processed tokens, highest KV usage seen. */
  preemptions: number | null;
  processedTokens: number | null;
  peakKvUsage: number | null;
  /** Processed tokens ÷ (ceiling × wall time) over the run so far; null when unknown (`unknown` says why and the fix). */
  effectiveUtilisation: number | null;
  ceilingTokensPerSecond: number | null;
  ceilingSource: CeilingSource | 'mixed' | null;
  unknown: string | null;
  unknownCode: UtilisationUnknownCode | null;
}

/** The gate in front of the agent stage (`--admission`) at a snapshot. */
export interface RolloutAdmissionMetrics {
  mode: 'fixed' | 'engine';
  /** Agents running, sessions waiting for a place, and how many may run now. */
  active: number;
  waiting: number;
  limit: number;
  /** engine: the controller's KV-derived target, why the gate is closed (null: open), the host's cap. */
  target: number | null;
  hold: string | null;
  hostCap: number | null;
  /** engine: the context a session typically holds (tokens) and the duty cycle the target divides by (absent in fixed mode). */
  heldContext?: number | null;
  duty?: number;
  /** engine with several replicas: each replica's own part (absent with one replica and in fixed mode). */
  replicas?: RolloutReplicaAdmission[];
}

/** One replica under engine admission at a snapshot. */
export interface RolloutReplicaAdmission {
  /** Its base URL. */
  replica: string;
  active: number;
  target: number;
  hold: string | null;
  /** Its last reading: KV usage (0..1), requests queued, preemptions counted; null before one. */
  kvUsage: number | null;
  waiting: number | null;
  preemptions: number | null;
}

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
  /** The engines' own figures (absent from producers that read no engine metrics). */
  engine?: RolloutEngineMetrics;
  /** The admission gate (absent from producers without one). */
  admission?: RolloutAdmissionMetrics;
  /** Each Docker host (--hosts): state, sessions placed there, what it holds, images, last error. Absent on the local engine. */
  hosts?: RolloutHostMetrics[];
}

/** One Docker host at a snapshot. */
export interface RolloutHostMetrics {
  name: string;
  state: 'up' | 'connecting' | 'down';
  sessions: number;
  capacity: number;
  images: number;
  losses: number;
  lastError: string | null;
}
