// Live throughput of a rollout from its own events (the UI never polls the store): stage counts,
// sessions per minute, sampled tokens per second, and the model's busy fraction from the gateway.
import type { ActivitySnapshot } from '../gateway/activity-meter.js';
import type { RunSessionRow, SessionStage } from '../store/run-repository.js';
import type { RolloutEvent } from './rollout-events.js';
import type { RolloutEngineMetrics, RolloutMetricsEvent } from './rollout-metrics.js';

export interface MetricsTracker {
  observe(event: RolloutEvent): void;
  addTokens(tokens: number): void;
  addReward(reward: number): void;
  /** Rates are over the whole run so far (since the tracker started); `engine` from the engines' /metrics. */
  snapshot(activity: ActivitySnapshot, engine?: RolloutEngineMetrics): RolloutMetricsEvent;
}

export function createMetricsTracker(sessions: readonly Pick<RunSessionRow, 'id' | 'stage' | 'reward'>[], now: () => number = () => performance.now()): MetricsTracker {
  const started = now();
  const stages = new Map<number, SessionStage>(sessions.map((session) => [session.id, session.stage === 'done' ? 'done' : 'queued']));
  const rewards: number[] = sessions.flatMap((session) => (session.reward === null ? [] : [session.reward]));
  let finished = 0;
  let tokens = 0;
  return {
    observe(event) {
      if (event.type === 'session-stage') stages.set(event.sessionId, event.stage);
      if (event.type === 'session-end') {
        stages.set(event.sessionId, 'done');
        finished += 1;
      }
    },
    addTokens(count) {
      tokens += count;
    },
    addReward(reward) {
      rewards.push(reward);
    },
    snapshot(activity, engine) {
      const minutes = Math.max(1e-9, (now() - started) / 60_000);
      const stageCounts: Record<SessionStage, number> = { queued: 0, init: 0, ready: 0, running: 0, post: 0, done: 0 };
      for (const stage of stages.values()) stageCounts[stage] += 1;
      return {
        type: 'metrics',
        at: Date.now(),
        stageCounts,
        total: stages.size,
        sessionsPerMinute: finished / minutes,
        tokensPerSecond: tokens / (minutes * 60),
        modelBusyFraction: activity.busyFraction,
        meanInFlight: activity.meanInFlight,
        rewards: { n: rewards.length, mean: rewards.length === 0 ? null : rewards.reduce((sum, value) => sum + value, 0) / rewards.length },
        ...(engine !== undefined ? { engine } : {}),
      };
    },
  };
}
