// The figures of one loop over its measured steps (from the end of the first trainer step, the warm-up, to the
// end of the last): GPU time by what it did, sessions trained per hour, idle GPU in the tail, preemptions, and
// the staleness of trained tokens (trainer step s trains on weights of version s; a token sampled with version v
// is s - v versions behind). On a shared GPU the rollout time is the window less the trainer steps; engine GPUs
// of their own are rollout GPUs for the whole window (a weight push or a wait for the trainer is theirs to lose).
import type { LoopWorld } from './gpu-loop-world.js';
import type { Topology } from './gpu-topology.js';

export interface LoopFigures {
  stepsMeasured: number;
  hours: number;
  /** Share of the window the trainer spent in trainer steps. */
  trainShare: number;
  /**
   * Engine busy (any step running) over the engines' rollout time (shared GPU: the window less trainer steps; engine
   * GPUs: the whole window, summed over the replicas), and over every GPU's window with training counted busy.
   */
  busyRollout: number;
  busyLoop: number;
  /** Useful engine time (tokens that stay in a trajectory: no recomputation, no re-prefill, nothing cancelled) over the rollout time, and over every GPU's window with training. */
  effectiveRollout: number;
  effectiveLoop: number;
  /** Tokens processed ÷ (the profile's ceiling × rollout time): what /v1/status calls effective utilisation. */
  ceilingUtil: number;
  /** Sampled tokens per second of rollout time (per engine GPU). */
  generatedPerSecond: number;
  /** Mean running batch while the engine stepped. */
  meanBatch: number;
  /** Sessions trained per hour, corrected for the work in progress at the window's ends (see LoopWorld.counters). */
  sessionsPerHour: number;
  sessionsTrained: number;
  /**
   * GPU output lost while the last sessions of each step finish, as a share of the window. A step's tail runs
   * from the last agent start among the sessions it trains to the step's start; over it, the sampled tokens
   * per second fall short of the loop's rate outside tails by the share counted (an idle GPU loses all of it).
   */
  tailWaste: number;
  /** Engine GPUs fully idle outside trainer steps, as a share of their window. */
  idle: number;
  preemptions: number;
  staleness: { mean: number; max: number };
  /** Sessions cancelled in the window (tail cancel), and their GPU time thrown away as a share of the rollout time. */
  cancelled: number;
  cancelledShare: number;
}

export function loopFigures(world: LoopWorld, topology: Pick<Topology, 'trainerGpus'>): LoopFigures {
  const steps = world.steps;
  const first = steps[0];
  const last = steps[steps.length - 1];
  if (first === undefined || last === undefined || steps.length < 2) throw new Error('a loop needs at least two trainer steps (the first is warm-up)');
  const from = first.counters;
  const to = last.counters;
  const windowMs = to.at - from.at;
  const measured = steps.slice(1);
  const trainMs = measured.reduce((sum, step) => sum + (step.endedAt - step.startedAt), 0);
  const engines = world.engines.length;
  const shared = topology.trainerGpus === 0;
  // GPU-ms the engines had for rollout: the shared GPU between trainer steps; engine GPUs the whole window each.
  const rolloutMs = shared ? windowMs - trainMs : engines * windowMs;
  const gpuMs = shared ? windowMs : (engines + topology.trainerGpus) * windowMs;
  const trainGpuMs = shared ? trainMs : topology.trainerGpus * trainMs;
  if (!(rolloutMs > 0)) throw new Error('the measured steps left no rollout time between them (the next groups were complete before each step): measure more steps or larger ones');
  const cancelledSessions = world.batches.flatMap((batch) => batch.sessions).filter((session) => session.cancelledAt !== null && session.cancelledAt > from.at && session.cancelledAt < to.at);
  const cancelledMs = cancelledSessions.reduce((sum, session) => sum + session.usefulMs, 0);
  const usefulMs = to.usefulMs - from.usefulMs - cancelledMs;
  const busyMs = to.busyMs - from.busyMs;
  let idleMs = 0;
  for (const engine of world.engines) for (const [start, end] of engine.idle) idleMs += Math.max(0, Math.min(end, to.at) - Math.max(start, from.at));
  let behind = 0;
  let tokens = 0;
  let maxBehind = 0;
  for (const step of measured) {
    for (const session of step.sessions) {
      for (const version of session.versions) {
        behind += step.step - version;
        maxBehind = Math.max(maxBehind, step.step - version);
      }
      tokens += session.versions.length;
    }
  }
  const ceiling = world.resolved.capacity.ceilingTokensPerSecond ?? Number.NaN;
  const sessionsTrained = measured.reduce((sum, step) => sum + step.sessions.length, 0);
  return {
    stepsMeasured: measured.length,
    hours: windowMs / 3_600_000,
    trainShare: trainMs / windowMs,
    busyRollout: busyMs / rolloutMs,
    busyLoop: (busyMs + trainGpuMs) / gpuMs,
    effectiveRollout: usefulMs / rolloutMs,
    effectiveLoop: (usefulMs + trainGpuMs) / gpuMs,
    ceilingUtil: (to.processedTokens - from.processedTokens) / (ceiling * (rolloutMs / 1000)),
    generatedPerSecond: (to.generationTokens - from.generationTokens) / (rolloutMs / 1000),
    meanBatch: busyMs === 0 ? 0 : (to.batchMs - from.batchMs) / busyMs,
    sessionsPerHour: (sessionsTrained + to.inProgress - from.inProgress) / (windowMs / 3_600_000),
    sessionsTrained,
    tailWaste: lostOutputMs(world, from.at, to.at) / windowMs,
    idle: idleMs / (engines * windowMs),
    preemptions: to.preemptions - from.preemptions,
    staleness: { mean: tokens === 0 ? 0 : behind / tokens, max: maxBehind },
    cancelled: cancelledSessions.length,
    cancelledShare: cancelledMs / rolloutMs,
  };
}

/** Sampled tokens per second between rate samples, inside [from, to] and outside trainer steps. */
function rolloutIntervals(world: LoopWorld, from: number, to: number): { start: number; end: number; rate: number }[] {
  const intervals: { start: number; end: number; rate: number }[] = [];
  for (let i = 1; i < world.rates.length; i++) {
    const a = world.rates[i - 1]!;
    const b = world.rates[i]!;
    if (a.at < from || b.at > to || a.training || b.training) continue;
    if (world.steps.some((step) => step.startedAt < b.at && step.endedAt > a.at)) continue;
    intervals.push({ start: a.at, end: b.at, rate: (b.generationTokens - a.generationTokens) / ((b.at - a.at) / 1000) });
  }
  return intervals;
}

/** Output lost in the measured steps' tails (ms at the loop's rate outside tails). */
function lostOutputMs(world: LoopWorld, from: number, to: number): number {
  const tails = world.steps
    .filter((step) => step.startedAt > from)
    .map((step) => ({ start: Math.max(...step.sessions.map((session) => session.agentStartedAt ?? step.startedAt)), end: step.startedAt }));
  const overlap = (interval: { start: number; end: number }): number => tails.reduce((sum, tail) => sum + Math.max(0, Math.min(interval.end, tail.end) - Math.max(interval.start, tail.start)), 0);
  const intervals = rolloutIntervals(world, from, to);
  let outsideMs = 0;
  let outsideTokens = 0;
  for (const interval of intervals) {
    const free = interval.end - interval.start - overlap(interval);
    outsideMs += free;
    outsideTokens += (interval.rate * free) / 1000;
  }
  if (outsideMs <= 0) return 0;
  const rate = outsideTokens / (outsideMs / 1000);
  return intervals.reduce((sum, interval) => sum + overlap(interval) * Math.max(0, 1 - interval.rate / rate), 0);
}
