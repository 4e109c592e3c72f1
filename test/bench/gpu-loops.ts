// The training loops the GPU benchmark compares, each on its own simulated GPUs (a topology: gpu-topology.ts)
// with the same workload stream, host slots and trainer model. The trainer's side (when to submit, when to
// step) is written here as a trainer script would drive polar serve; everything polar decides is polar's code:
// stage pools, admission (FixedAdmission = --concurrency, EngineSessionAdmission = --admission engine, one
// controller per engine replica), the generation gate and max-staleness gate, the tail policy (planTail), the
// engines' pause modes.
//   sync:   rollout a step's groups, export, train, repeat (polar rollout → export → step).
//   async:  polar serve today: the next batch queued while one runs, fixed concurrency; the trainer waits for
//           the whole batch, pauses (hold: new calls held, calls in flight drain), trains (on its own GPUs: the
//           engines generate the next batch meanwhile, and are paused only for the push), resumes.
//   carry:  the new scheduler: engine admission; the trainer steps as soon as G groups are complete (in
//           completion order, any batch), the rest carried across the step by a keep pause; the next batch is
//           submitted at the step's start with the version being trained, so its sessions start during the step.
//   cancel: the new scheduler with tail cancel: each batch starts G + E groups; at G complete the rest is cancelled.
// On a shared GPU a step holds the GPU (generation paused, weights updated in place); with trainer GPUs of its
// own the step runs beside generation and only the weight push pauses the engines.
import { EngineAdmission } from '../../src/rollout/admission/engine-admission.js';
import { SessionContexts } from '../../src/rollout/admission/session-contexts.js';
import { EngineSessionAdmission, FixedAdmission, type SessionAdmission } from '../../src/rollout/admission/session-admission.js';
import { planTail } from '../../src/rollout/admission/tail-policy.js';
import type { TraceHarness } from '../fixtures/traces/trace-fixture.js';
import { LoopWorld, type Batch } from './gpu-loop-world.js';
import type { SimSession } from './gpu-simulated-session.js';
import { pushMs, sleepMs, type Topology } from './gpu-topology.js';
import { trainerComputeMs, trainerStepMs, type TrainerModel } from './gpu-trainer-step.js';
import type { Random } from './workload/draw.js';
import type { Workload } from './workload/sample-session.js';
import type { SessionPlan } from './workload/session-plan.js';

export type LoopKind = 'sync' | 'async' | 'carry' | 'cancel';

export const LOOP_LABELS: Record<LoopKind, string> = {
  sync: '(i) synchronous: rollout → export → step',
  async: '(ii) polar serve today (fixed, hold)',
  carry: '(iii) new scheduler, tail carry',
  cancel: '(iii) new scheduler, tail cancel',
};

export interface LoopParams {
  profile: string;
  /** Groups per trainer step (G), sessions per group (GRPO samples). */
  groups: number;
  samples: number;
  /** Trainer steps; the first is warm-up, the rest are measured. */
  steps: number;
  /** Extra groups a `cancel` batch starts (E). */
  extraGroups: number;
  /** Session slots of the whole host (every engine's sessions together). */
  hostSlots: number;
  cores: number;
  /** Which GPUs generate and which train. */
  topology: Topology;
  maxStaleness: number;
  pollMs: number;
  trainer: TrainerModel;
  workload: Workload;
  harnesses: readonly TraceHarness[];
  /** Seeds the workload stream (same seed: same groups in the same order for every loop). */
  random: () => Random;
}

/** The i-th group of the loop's workload stream: same seed, same plans for every loop. */
export class GroupStream {
  private readonly drawn: SessionPlan[][] = [];
  private readonly random: Random;
  next = 0;

  constructor(private readonly params: Pick<LoopParams, 'random' | 'harnesses' | 'workload' | 'samples'>) {
    this.random = params.random();
  }

  take(count: number): { id: number; plans: SessionPlan[] }[] {
    return Array.from({ length: count }, () => {
      const id = this.next++;
      while (this.drawn.length <= id) {
        const harness = this.params.harnesses[this.drawn.length % this.params.harnesses.length]!;
        this.drawn.push(this.params.workload.sampleGroup(harness, this.params.samples, this.random));
      }
      return { id, plans: this.drawn[id]! };
    });
  }
}

/** Fixed concurrency for the loops of today; engine admission (a controller per replica, one shared estimate of the sessions' contexts) for the new scheduler. */
function admissionFor(kind: LoopKind, params: LoopParams): SessionAdmission {
  if (kind === 'sync' || kind === 'async') return new FixedAdmission(params.hostSlots);
  const contexts = new SessionContexts({ contextWindow: params.workload.options.contextTokens });
  const engines = params.topology.engines;
  const replicas = engines === 1 ? new EngineAdmission({ contexts }) : Array.from({ length: engines }, (_, index) => ({ replica: `gpu-${index}`, controller: new EngineAdmission({ contexts }) }));
  return new EngineSessionAdmission(replicas, () => params.hostSlots, contexts);
}

/** How a loop's trainer steps: compute the step, then have the engines run the new version. */
interface Trainer {
  /** True when the trainer has GPUs of its own (the engines go on while it computes; only the update pauses them). */
  separate: boolean;
  /** Trains step `step` on `sessions`. On the shared GPU the caller paused generation first (the step holds the GPU). */
  compute(step: number, sessions: SimSession[]): Promise<void>;
  /** The engines get version step + 1: in place on the shared GPU; pushed otherwise, every engine paused (keep) for the push. */
  update(step: number): Promise<void>;
}

function trainerFor(world: LoopWorld, params: LoopParams): Trainer {
  const profile = world.resolved.profile;
  const { topology, trainer } = params;
  const push = pushMs(topology, profile);
  const sequences = (sessions: SimSession[]): number[] => sessions.map((session) => session.sequenceTokens);
  if (push === null) {
    const sleep = sleepMs(profile);
    return {
      separate: false,
      async compute(step, sessions) {
        if (topology.sleep) {
          await world.sleepEngines();
          await world.wait(sleep);
        }
        await world.train(step, sessions, trainerStepMs(profile, trainer, sequences(sessions)));
        if (topology.sleep) {
          await world.wait(sleep);
          world.wakeEngines();
        }
      },
      update: (step) => world.updateWeights(step + 1),
    };
  }
  return {
    separate: true,
    compute: (step, sessions) => world.train(step, sessions, trainerComputeMs(profile, trainer, sequences(sessions), topology.trainerGpus), false),
    async update(step) {
      await world.pauseEngines('keep');
      await world.wait(push);
      await world.updateWeights(step + 1);
    },
  };
}

/** Runs one loop to the end of its last trainer step; returns the world with its books. */
export async function runLoop(kind: LoopKind, params: LoopParams): Promise<LoopWorld> {
  const admission = admissionFor(kind, params);
  const world = new LoopWorld({ profile: params.profile, hostSlots: params.hostSlots, cores: params.cores, maxStaleness: params.maxStaleness, pollMs: params.pollMs, admission, engines: params.topology.engines });
  const stream = new GroupStream(params);
  const train = trainerFor(world, params);
  let done = false;
  const trainer = (async () => {
    if (kind === 'sync') await syncLoop(world, stream, params, train);
    else if (kind === 'async') await asyncLoop(world, stream, params, train);
    else await schedulerLoop(world, stream, params, train, kind);
    await world.stop();
    done = true;
  })();
  trainer.catch((error: unknown) => (world.failure ??= error));
  await world.clock.run({ until: MAX_VIRTUAL_MS });
  if (done) await trainer;
  if (world.failure !== undefined) throw world.failure;
  if (!done) throw new Error(`the ${kind} loop stalled at virtual ${(world.now / 3_600_000).toFixed(1)} h after ${world.steps.length} trainer steps`);
  return world;
}

/** A loop still going after this much virtual time is stuck. */
const MAX_VIRTUAL_MS = 500 * 3_600_000;

/** Drain timeout of a hold pause: longer than any call (the largest a timer takes). */
const DRAIN_FOREVER_MS = 2_147_483_647;

const allEnded = (batch: Batch): boolean => batch.sessions.every((session) => session.ended);

async function syncLoop(world: LoopWorld, stream: GroupStream, params: LoopParams, trainer: Trainer): Promise<void> {
  for (let step = 0; step < params.steps; step++) {
    const batch = world.submit(stream.take(params.groups), step);
    await world.until(() => allEnded(batch));
    if (!trainer.separate) await world.pauseEngines('keep');
    await trainer.compute(step, batch.sessions);
    await trainer.update(step);
    world.resumeEngines();
  }
}

async function asyncLoop(world: LoopWorld, stream: GroupStream, params: LoopParams, trainer: Trainer): Promise<void> {
  const batches = [world.submit(stream.take(params.groups), 0), world.submit(stream.take(params.groups), 0)];
  for (let step = 0; step < params.steps; step++) {
    const batch = batches[step]!;
    await world.until(() => allEnded(batch));
    // With trainer GPUs of its own the engines serve the next batch while it trains; the hold pause comes before the update.
    if (trainer.separate) await trainer.compute(step, batch.sessions);
    await world.generation.pause(DRAIN_FOREVER_MS);
    await world.pauseEngines('keep');
    if (!trainer.separate) await trainer.compute(step, batch.sessions);
    await trainer.update(step);
    world.resumeEngines();
    world.generation.resume(step + 1);
    batches.push(world.submit(stream.take(params.groups), step + 1));
  }
}

async function schedulerLoop(world: LoopWorld, stream: GroupStream, params: LoopParams, trainer: Trainer, tail: 'carry' | 'cancel'): Promise<void> {
  const perBatch = tail === 'cancel' ? params.groups + params.extraGroups : params.groups;
  const batches = [world.submit(stream.take(perBatch), 0), world.submit(stream.take(perBatch), 0)];
  let consumed = 0;
  for (let step = 0; step < params.steps; step++) {
    let groups: number[];
    if (tail === 'carry') {
      await world.until(() => world.completed.length - consumed >= params.groups);
      groups = world.completed.slice(consumed, consumed + params.groups);
      consumed += params.groups;
    } else {
      const batch = batches[step]!;
      const members = new Set(batch.groups);
      const complete = (): number[] => world.completed.filter((group) => members.has(group));
      await world.until(() => complete().length >= params.groups);
      const plan = planTail({ completeGroups: complete().length, open: batch.sessions.filter((session) => !session.ended).map((session) => session.id) }, params.groups, 'cancel');
      const cancel = new Set(plan.cancel);
      for (const session of batch.sessions) if (cancel.has(session.id)) session.cancel();
      groups = complete().slice(0, params.groups);
    }
    const trained = groups.flatMap((group) => world.sessionsOf(group));
    if (!trainer.separate) {
      // Keep pause: calls in flight frozen with their KV; new calls held at the gate.
      await world.pauseEngines('keep');
      void world.generation.pause(0);
    }
    // Ahead-start: the next batch asks for the version being trained; its sessions start during the step.
    batches.push(world.submit(stream.take(perBatch), step + 1));
    await trainer.compute(step, trained);
    // With trainer GPUs of its own, generation went on during the step; the push pauses it (keep, new calls held).
    if (trainer.separate) void world.generation.pause(0);
    await trainer.update(step);
    world.generation.resume(step + 1);
    world.resumeEngines();
  }
}
