// What a rollout reports while it runs; the CLI renders these (plain lines, JSON lines or the ink UI).
import type { SessionReason, SessionStage, SessionStatus } from '../store/run-repository.js';
import type { EngineUsage } from '../upstream/metrics/engine-usage.js';
import type { RolloutMetricsEvent } from './rollout-metrics.js';

export type SessionPhase = 'create' | 'prepare' | 'agent' | 'extract' | 'evaluate' | 'teardown';

export type RolloutEvent =
  | { type: 'run-start'; runId: number; runName: string; dbPath: string; sessions: number; harness: string; upstream: string; resumed: boolean }
  /** `host`: the SSH host pulling it (absent: the local engine). */
  | { type: 'image-progress'; image: string; status: string; host?: string }
  | { type: 'image-ready'; image: string; source: 'local' | 'pulled'; id: string | null; host?: string }
  | { type: 'image-failed'; image: string; attempt: number; attempts: number; error: string; host?: string }
  /** A Docker host (--hosts) changed state: lost (down), reconnecting, back (up). */
  | { type: 'host'; host: string; state: 'up' | 'connecting' | 'down'; lastError: string | null }
  /** A session attempt was placed on a host (--hosts). */
  | { type: 'session-host'; sessionId: number; instanceId: string; sampleIndex: number; host: string }
  | { type: 'run-failed'; runId: number | null; runName: string; reason: string }
  | { type: 'session-stage'; sessionId: number; instanceId: string; sampleIndex: number; stage: SessionStage }
  | { type: 'session-phase'; sessionId: number; phase: SessionPhase; ms: number }
  | {
      type: 'session-end';
      sessionId: number;
      instanceId: string;
      sampleIndex: number;
      status: SessionStatus;
      /** The typed reason of the status (absent in events of older producers). */
      reason?: SessionReason | null;
      detail: string | null;
      patchBytes: number;
      calls: number;
      timings: Record<string, number>;
      /** 1 resolved, 0 not, null when not evaluated. */
      reward: number | null;
    }
  | {
      type: 'run-end';
      runId: number;
      runName: string;
      counts: Partial<Record<SessionStatus, number>>;
      wallMs: number;
      /** The engines over the run (tokens processed, preemptions, peak KV usage, effective utilisation), when polled. */
      engine?: EngineUsage;
    }
  | RolloutMetricsEvent;

export type RolloutEventListener = (event: RolloutEvent) => void;
