// `npm run bench -- gpu`: the training loops side by side on one simulated GPU in virtual time, at equal GPU
// (profile), host (session slots, cores), workload stream (seed) and trainer model: (i) synchronous rollout →
// export → step, (ii) polar serve as today (fixed concurrency, next batch queued, hold pause), (iii) polar serve
// with the new scheduler (engine admission, tail carry or cancel, ahead-start). Then the new scheduler's gain
// under changed assumptions (tool time, output length). Every loop runs polar's own admission, stage pools,
// generation gate and tail plan (gpu-loops.ts); nothing is tuned per loop.
// Sized for a shared 2-core machine: 8 groups x 8 samples per step, 1 warm-up + 3 measured steps per loop
// (BENCH_GPU_STEPS changes the step count); about 3-4 minutes of wall time in all (load average ~4).
import { seededRandom } from '../../src/sim/seeded-random.js';
import { TRACE_HARNESSES } from '../fixtures/traces/trace-fixture.js';
import type { Benchmark } from './benchmark.js';
import { loopFigures } from './gpu-loop-figures.js';
import { goalLines, loopTable, sensitivityTable, type LoopResult, type SensitivityRow } from './gpu-loop-tables.js';
import { GroupStream, LOOP_LABELS, runLoop, type LoopKind, type LoopParams } from './gpu-loops.js';
import { DEFAULT_TRAINER, describeTrainer } from './gpu-trainer-step.js';
import { resolveGpu } from '../../src/sim/gpu/gpu-profiles.js';
import { defaultWorkload } from './workload/default-workload.js';
import type { Workload } from './workload/sample-session.js';
import type { SessionPlan } from './workload/session-plan.js';
import { describeWorkloadOptions, summarizeWorkload } from './workload/summarize-workload.js';

export interface Variation {
  label: string;
  /** Tool (observation) time multiplier; init and post stay as recorded. */
  toolScale?: number;
  /** Output length multiplier (answer and reasoning medians). */
  outputScale?: number;
  /** Session slots of the host instead (the fixed loops' --concurrency, the engine loop's host cap). */
  hostSlots?: number;
}

export interface GpuBenchConfig {
  params: LoopParams;
  loops: readonly LoopKind[];
  /** The new scheduler's loop the goals and the sensitivity table judge. */
  scheduler: LoopKind;
  variations: readonly Variation[];
  seed: number;
}

/** The workload with tool times and output lengths scaled (1, 1: the workload itself). */
export function varyWorkload(base: Workload, variation: Variation): Workload {
  const outputScale = variation.outputScale ?? 1;
  const toolScale = variation.toolScale ?? 1;
  const workload =
    outputScale === 1
      ? base
      : defaultWorkload({
          ...base.options,
          answerTokens: { ...base.options.answerTokens, median: base.options.answerTokens.median * outputScale },
          reasoningTokens: { ...base.options.reasoningTokens, median: base.options.reasoningTokens.median * outputScale },
        });
  if (toolScale === 1) return workload;
  const scaled = (plan: SessionPlan): SessionPlan => ({ ...plan, turns: plan.turns.map((turn) => ({ ...turn, toolMs: turn.toolMs * toolScale })) });
  return {
    ...workload,
    sampleSession: (harness, random, task) => scaled(workload.sampleSession(harness, random, task)),
    sampleGroup: (harness, size, random) => workload.sampleGroup(harness, size, random).map(scaled),
  };
}

export function defaultGpuBenchConfig(): GpuBenchConfig {
  const seed = 7;
  return {
    params: {
      profile: 'qwen3-8b-h100',
      groups: 8,
      samples: 8,
      steps: Math.max(2, Number(process.env.BENCH_GPU_STEPS ?? '4')),
      extraGroups: 2,
      hostSlots: 32,
      cores: 16,
      maxStaleness: 1,
      pollMs: 1_000,
      trainer: DEFAULT_TRAINER,
      workload: defaultWorkload(),
      harnesses: TRACE_HARNESSES,
      random: () => seededRandom(seed),
    },
    loops: ['sync', 'async', 'carry', 'cancel'],
    scheduler: 'carry',
    variations: [
      { label: 'tool time x4', toolScale: 4 },
      { label: 'output length x2', outputScale: 2 },
      { label: 'host slots 12 (near what the KV cache holds)', hostSlots: 12 },
    ],
    seed,
  };
}

function parameterLines(config: GpuBenchConfig): string[] {
  const p = config.params;
  const gpu = resolveGpu(p.profile);
  const capacity = gpu.capacity;
  return [
    `GPU: simulated ${p.profile} (${gpu.profile.gpu.name}, ${gpu.profile.model.name}): KV cache ${capacity.kvCacheTokens} tokens, max_num_seqs ${capacity.maxNumSeqs}; virtual time (deterministic).`,
    `Host (every loop): ${p.hostSlots} session slots (the fixed loops' --concurrency; the engine loop's host cap), ${p.cores} cores for the stage pools.`,
    `Step: ${p.groups} groups x ${p.samples} samples (GRPO); ${p.steps} trainer steps per loop, the first a warm-up, figures over the other ${p.steps - 1}. ` +
      `--max-staleness ${p.maxStaleness}; engine readings every ${p.pollMs} ms; tail cancel starts ${p.extraGroups} extra groups per batch.`,
    describeTrainer(gpu.profile, p.trainer),
    `Why: training FLOPs scale with the trained tokens (6N per token, Kaplan et al. 2020; +2N for the old-logprob pass the trainers recompute); the MFU is below Megatron-Core's reported up-to-47% because one GPU trains variable-length sequences; the GPU is shared, so generation is paused for the whole step.`,
    `Workload: seed ${config.seed}, groups drawn in harness rotation (${p.harnesses.join(', ')}); the same stream of groups for every loop.`,
  ];
}

/** The plans of the groups a loop draws first (the workload summary's sample). */
function sampledPlans(params: LoopParams, groups: number): SessionPlan[] {
  return new GroupStream(params).take(groups).flatMap((group) => group.plans);
}

async function figuresOf(kind: LoopKind, params: LoopParams): Promise<LoopResult> {
  return { kind, figures: loopFigures(await runLoop(kind, params)) };
}

/** Runs every loop and variation of `config`; returns the benchmark's text (markdown). */
export async function runGpuBench(config: GpuBenchConfig): Promise<string> {
  const { params } = config;
  const results: LoopResult[] = [];
  for (const kind of config.loops) results.push(await figuresOf(kind, params));
  const sensitivity: SensitivityRow[] = [];
  const base = results.find((result) => result.kind === 'sync');
  const scheduler = results.find((result) => result.kind === config.scheduler);
  if (base !== undefined && scheduler !== undefined) sensitivity.push({ label: 'as measured above', sync: base.figures, scheduler: scheduler.figures });
  for (const variation of config.variations) {
    const varied = { ...params, hostSlots: variation.hostSlots ?? params.hostSlots, workload: varyWorkload(params.workload, variation) };
    sensitivity.push({ label: variation.label, sync: (await figuresOf('sync', varied)).figures, scheduler: (await figuresOf(config.scheduler, varied)).figures });
  }
  const hasGoals = ['sync', 'async', config.scheduler].every((kind) => config.loops.includes(kind as LoopKind));
  return [
    ...parameterLines(config),
    '',
    `Workload (the first ${params.groups * params.steps} groups of the stream):`,
    '',
    summarizeWorkload(sampledPlans(params, params.groups * params.steps)),
    '',
    describeWorkloadOptions(params.workload.options),
    '',
    loopTable(results),
    '',
    'rollout GPU util (effective): GPU time on tokens that stay in a trajectory (no recomputation after preemption, no re-prefill of an evicted prefix, nothing of a cancelled session) over the time outside trainer steps. ' +
      'busy: any engine step running. whole-loop util: trainer steps counted as useful GPU time. tail waste: sampled tokens lost, at the loop\'s rate outside tails, from the last agent start among a step\'s trained sessions to the step, over the window (= % of a step cycle). ' +
      'staleness: versions between a trained token\'s weights and the step that trains it. sessions/h: trained sessions corrected for the work in progress at the window\'s ends.',
    '',
    ...(hasGoals ? [`Goals (${LOOP_LABELS[config.scheduler]}):`, ...goalLines(results, config.scheduler), ''] : []),
    `Sensitivity: ${LOOP_LABELS[config.scheduler]} vs (i) synchronous, one assumption changed, everything else as above:`,
    '',
    sensitivityTable(sensitivity, config.scheduler),
  ].join('\n');
}

export const gpuScheduler: Benchmark = {
  name: 'GPU training loops on one simulated GPU: sync vs polar serve today vs the new scheduler (gpu)',
  run: () => runGpuBench(defaultGpuBenchConfig()),
};
