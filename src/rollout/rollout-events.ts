// What a rollout reports while it runs; the CLI renders these (plain lines, JSON lines or the ink UI).
import type { SessionStage, SessionStatus } from '../store/run-repository.js';
import type { RolloutMetricsEvent } from './rollout-metrics.js';

export type SessionPhase = 'create' | 'prepare' | 'agent' | 'extract' | 'evaluate' | 'teardown';

export type RolloutEvent =
  | { type: 'run-start'; runId: number; runName: string; dbPath: string; sessions: number; harness: string; upstream: string; resumed: boolean }
  | { type: 'image-progress'; image: string; status: string }
  | { type: 'session-stage'; sessionId: number; instanceId: string; sampleIndex: number; stage: SessionStage }
  | { type: 'session-phase'; sessionId: number; phase: SessionPhase; ms: number }
  | {
      type: 'session-end';
      sessionId: number;
      instanceId: string;
      sampleIndex: number;
      status: SessionStatus;
      detail: string | null;
      patchBytes: number;
      calls: number;
      timings: Record<string, number>;
      /** 1 resolved, 0 not, null when not evaluated. */
      reward: number | null;
    }
  | { type: 'run-end'; runId: number; runName: string; counts: Partial<Record<SessionStatus, number>>; wallMs: number }
  | RolloutMetricsEvent;

export type RolloutEventListener = (event: RolloutEvent) => void;
