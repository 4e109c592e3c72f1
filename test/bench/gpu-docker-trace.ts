// Where the time of one `-- gpu-docker` run went, from what the run itself recorded: the 1-s metrics events
// (the admission gate's state and the engine's gauges as the scheduler saw them) and the store (each session's
// phase timings and its calls: start, latency, prompt and sampled tokens). It answers why one admission mode
// is slower than the other: how long the gate was closed and why, how full the KV cache was, how much of an
// agent's time its calls spent in the engine (the duty cycle) and how large the contexts they held were.
import type { RolloutEvent } from '../../src/rollout/rollout-events.js';
import type { RolloutMetricsEvent } from '../../src/rollout/rollout-metrics.js';
import type { Store } from '../../src/store/open-store.js';

export interface RunTrace {
  /** Metrics snapshots read (about one a second). */
  snapshots: number;
  /** Share of snapshots with the gate closed, by reason ('' key: open). */
  hold: Record<string, number>;
  /** Means over the snapshots: agents admitted, the limit, the engine's running batch, queue and KV usage. */
  meanActive: number;
  meanLimit: number;
  /** Engine mode: means of the controller's target and the host's cap (the limit is the smaller). */
  meanTarget: number;
  meanHostCap: number;
  /** Engine mode: the controller's held context and duty cycle at the run's last snapshot. */
  controllerHeld: number;
  controllerDuty: number;
  meanRunning: number;
  meanWaiting: number;
  meanKv: number;
  /** Share of snapshots with sessions admitted but nothing running in the engine. */
  engineIdleWhileActive: number;
  /** Per session, means: Docker create + prepare, agent, model time (sum of call latencies), calls. */
  initMs: number;
  agentMs: number;
  modelMs: number;
  calls: number;
  /** Time from the agent's start to its first call (harness start-up), and between a call's end and the next call (tool + harness). */
  firstCallMs: number;
  betweenCallsMs: number;
  /** Model time over agent time (what the controller calls the duty cycle, from the calls). */
  duty: number;
  /** Context a session reached (its largest prompt + sampled), and the context its calls held weighted by their latency. */
  finalContext: number;
  heldContext: number;
}

const mean = (values: readonly number[]): number => (values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length);

export function traceRun(events: readonly RolloutEvent[], store: Store, runId: number): RunTrace {
  const snapshots = events.filter((event): event is RolloutMetricsEvent => event.type === 'metrics');
  const hold: Record<string, number> = {};
  for (const snapshot of snapshots) {
    const key = snapshot.admission?.hold ?? '';
    hold[key] = (hold[key] ?? 0) + 1 / snapshots.length;
  }
  const sessions = store.runs.sessions(runId);
  const perSession = sessions.map((session) => {
    const calls = store.calls.listBySession(session.id).filter((call) => call.seq >= session.firstCallSeq);
    const modelMs = calls.reduce((sum, call) => sum + call.latencyMs, 0);
    const contexts = calls.map((call) => (call.capture.promptTokenIds?.length ?? call.capture.promptTokens ?? 0) + (call.capture.tokenIds?.length ?? call.capture.completionTokens ?? 0));
    const held = calls.reduce((sum, call, index) => sum + call.latencyMs * (contexts[index] ?? 0), 0) / Math.max(1, modelMs);
    const gaps = calls.slice(1).map((call, index) => call.startedAt - ((calls[index]?.startedAt ?? 0) + (calls[index]?.latencyMs ?? 0)));
    const agentMs = session.timings.agent ?? Number.NaN;
    const agentStart = calls.length === 0 ? Number.NaN : (calls[calls.length - 1]?.startedAt ?? 0) + (calls[calls.length - 1]?.latencyMs ?? 0) - agentMs;
    return {
      initMs: (session.timings.create ?? 0) + (session.timings.prepare ?? 0),
      agentMs,
      modelMs,
      calls: calls.length,
      firstCallMs: calls.length === 0 ? Number.NaN : (calls[0]?.startedAt ?? 0) - agentStart,
      gaps,
      finalContext: Math.max(0, ...contexts),
      held,
    };
  });
  const gauge = (pick: (snapshot: RolloutMetricsEvent) => number | null | undefined): number => mean(snapshots.map(pick).filter((value): value is number => typeof value === 'number'));
  return {
    snapshots: snapshots.length,
    hold,
    meanActive: gauge((snapshot) => snapshot.admission?.active),
    meanLimit: gauge((snapshot) => snapshot.admission?.limit),
    meanTarget: gauge((snapshot) => snapshot.admission?.target),
    meanHostCap: gauge((snapshot) => snapshot.admission?.hostCap),
    controllerHeld: snapshots.at(-1)?.admission?.heldContext ?? Number.NaN,
    controllerDuty: snapshots.at(-1)?.admission?.duty ?? Number.NaN,
    meanRunning: gauge((snapshot) => snapshot.engine?.running),
    meanWaiting: gauge((snapshot) => snapshot.engine?.waiting),
    meanKv: gauge((snapshot) => snapshot.engine?.kvUsage),
    engineIdleWhileActive: mean(snapshots.filter((snapshot) => (snapshot.admission?.active ?? 0) > 0).map((snapshot) => (snapshot.engine?.running === 0 ? 1 : 0))),
    initMs: mean(perSession.map((session) => session.initMs)),
    agentMs: mean(perSession.map((session) => session.agentMs)),
    modelMs: mean(perSession.map((session) => session.modelMs)),
    calls: mean(perSession.map((session) => session.calls)),
    firstCallMs: mean(perSession.map((session) => session.firstCallMs)),
    betweenCallsMs: mean(perSession.flatMap((session) => session.gaps)),
    duty: perSession.reduce((sum, session) => sum + session.modelMs, 0) / perSession.reduce((sum, session) => sum + session.agentMs, 0),
    finalContext: mean(perSession.map((session) => session.finalContext)),
    heldContext: mean(perSession.map((session) => session.held)),
  };
}
