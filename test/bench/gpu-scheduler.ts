// `npm run bench -- gpu`: the training loops side by side on simulated GPUs in virtual time, in three topologies
// (gpu-topology.ts: one shared GPU; (a) one engine GPU + one trainer GPU; (b) four engine replicas + four trainer
// GPUs), within a topology at equal GPUs (profile, count), host (session slots, cores), workload stream (seed)
// and trainer model: (i) synchronous rollout → export → step, (ii) polar serve as today (fixed concurrency, next
// batch queued, hold pause), (iii) polar serve with the new scheduler (engine admission per replica, tail carry or
// cancel, ahead-start). Then the new scheduler's gain under changed assumptions. Every loop runs polar's own
// admission, stage pools, generation gate and tail plan (gpu-loops.ts); nothing is tuned per loop, and each
// topology's goals are judged from the figures (met or MISSED with the figure).
// Sized for a shared 2-core machine: 8 groups x 8 samples per step on one engine GPU (32 per step on four), 1
// warm-up + 3 measured steps per loop (BENCH_GPU_STEPS changes the step count); BENCH_GPU_TOPOLOGIES (e.g.
// "shared,fleet") runs fewer topologies.
import { seededRandom } from '../../src/sim/seeded-random.js';
import { TRACE_HARNESSES } from '../fixtures/traces/trace-fixture.js';
import type { Benchmark } from './benchmark.js';
import { loopFigures } from './gpu-loop-figures.js';
import { disaggregatedGoalLines, goalLines, loopTable, sensitivityTable, sharedGoalLines, type LoopResult, type SensitivityRow } from './gpu-loop-tables.js';
import { GroupStream, LOOP_LABELS, runLoop, type LoopKind, type LoopParams } from './gpu-loops.js';
import { describeTopology, SOURCES, TOPOLOGIES, type Topology } from './gpu-topology.js';
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
  /** The topology instead (e.g. the push over another link, the engine asleep during steps). */
  topology?: Topology;
}

/** One topology's run: its GPUs, and the step size and host that go with them (the same for every loop in it). */
export interface TopologyRun {
  topology: Topology;
  /** Groups per trainer step and session slots of the host, in this topology. */
  groups: number;
  hostSlots: number;
  variations: readonly Variation[];
}

export interface GpuBenchConfig {
  /** The parameters every topology shares (its own groups, host slots and topology replace theirs). */
  params: LoopParams;
  topologies: readonly TopologyRun[];
  loops: readonly LoopKind[];
  /** The new scheduler's loop the goals and the sensitivity table judge. */
  scheduler: LoopKind;
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

/** slime's measured weight update: a 235B-parameter model in about a minute (THUDM/slime#67): ~7.8 GB/s. */
const SLIME_UPDATE_RATE = { name: 'slime\'s measured update rate (7.8 GB/s)', bytesPerSecond: 7.8e9 };

export function defaultGpuBenchConfig(): GpuBenchConfig {
  const seed = 7;
  const only = (process.env.BENCH_GPU_TOPOLOGIES ?? 'shared,split,fleet').split(',').map((name) => name.trim());
  const topologies: TopologyRun[] = [
    {
      topology: TOPOLOGIES.shared,
      groups: 8,
      hostSlots: 32,
      variations: [
        { label: 'tool time x4', toolScale: 4 },
        { label: 'output length x2', outputScale: 2 },
        { label: 'host slots 12 (near what the KV cache holds)', hostSlots: 12 },
        { label: 'engine asleep during each step (KV cache dropped)', topology: { ...TOPOLOGIES.shared, sleep: true } },
      ],
    },
    { topology: TOPOLOGIES.split, groups: 8, hostSlots: 32, variations: [] },
    {
      topology: TOPOLOGIES.fleet,
      groups: 32,
      hostSlots: 128,
      variations: [
        { label: 'weight push at slime\'s measured update rate', topology: { ...TOPOLOGIES.fleet, link: SLIME_UPDATE_RATE, pushOverheadMs: 0 } },
        { label: 'tool time x4', toolScale: 4 },
      ],
    },
  ];
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
      topology: TOPOLOGIES.shared,
    },
    topologies: topologies.filter((run) => only.includes(run.topology.name)),
    loops: ['sync', 'async', 'carry', 'cancel'],
    scheduler: 'carry',
    seed,
  };
}

function parameterLines(config: GpuBenchConfig): string[] {
  const p = config.params;
  const gpu = resolveGpu(p.profile);
  const capacity = gpu.capacity;
  return [
    `GPU: simulated ${p.profile} (${gpu.profile.gpu.name}, ${gpu.profile.model.name}): KV cache ${capacity.kvCacheTokens} tokens, max_num_seqs ${capacity.maxNumSeqs} per engine GPU; virtual time (deterministic).`,
    `Host: the session slots below (the fixed loops' --concurrency; the engine loop's host cap), ${p.cores} cores for the stage pools.`,
    `Step: the groups below x ${p.samples} samples (GRPO); ${p.steps} trainer steps per loop, the first a warm-up, figures over the other ${p.steps - 1}. ` +
      `--max-staleness ${p.maxStaleness}; engine readings every ${p.pollMs} ms; tail cancel starts ${p.extraGroups} extra groups per batch.`,
    describeTrainer(gpu.profile, p.trainer),
    `Workload: seed ${config.seed}, groups drawn in harness rotation (${p.harnesses.join(', ')}); the same stream of groups for every loop.`,
    '',
    'Sources of the constants:',
    ...SOURCES.map((source) => `- ${source}`),
  ];
}

/** The parameters of one topology's loops. */
function topologyParams(config: GpuBenchConfig, run: TopologyRun): LoopParams {
  return { ...config.params, topology: run.topology, groups: run.groups, hostSlots: run.hostSlots };
}

/** The plans of the groups a loop draws first (the workload summary's sample). */
function sampledPlans(params: LoopParams, groups: number): SessionPlan[] {
  return new GroupStream(params).take(groups).flatMap((group) => group.plans);
}

async function figuresOf(kind: LoopKind, params: LoopParams): Promise<LoopResult> {
  return { kind, figures: loopFigures(await runLoop(kind, params), params.topology) };
}

/** One topology: its loops side by side, its goals, its sensitivity rows. */
async function topologySection(config: GpuBenchConfig, run: TopologyRun): Promise<string[]> {
  const params = topologyParams(config, run);
  const profile = resolveGpu(params.profile).profile;
  const results: LoopResult[] = [];
  for (const kind of config.loops) {
    const started = performance.now();
    results.push(await figuresOf(kind, params));
    process.stderr.write(`gpu: ${run.topology.name} ${kind} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }
  const sensitivity: SensitivityRow[] = [];
  const base = results.find((result) => result.kind === 'sync');
  const scheduler = results.find((result) => result.kind === config.scheduler);
  if (base !== undefined && scheduler !== undefined && run.variations.length > 0) sensitivity.push({ label: 'as measured above', sync: base.figures, scheduler: scheduler.figures });
  for (const variation of run.variations) {
    const varied = { ...params, hostSlots: variation.hostSlots ?? params.hostSlots, topology: variation.topology ?? params.topology, workload: varyWorkload(params.workload, variation) };
    sensitivity.push({ label: variation.label, sync: (await figuresOf('sync', varied)).figures, scheduler: (await figuresOf(config.scheduler, varied)).figures });
  }
  const hasGoals = ['sync', 'async', config.scheduler].every((kind) => config.loops.includes(kind as LoopKind));
  const shared = run.topology.trainerGpus === 0;
  const goals = !hasGoals ? [] : shared ? [...sharedGoalLines(results, config.scheduler), ...goalLines(results, config.scheduler)] : run.topology.name === 'fleet' ? disaggregatedGoalLines(results, config.scheduler) : [];
  return [
    `### ${run.topology.label}`,
    '',
    describeTopology(run.topology, profile),
    `${run.groups} groups x ${params.samples} samples per step; ${run.hostSlots} session slots.`,
    '',
    loopTable(results),
    '',
    shared
      ? 'rollout GPU util (effective): engine GPU time on tokens that stay in a trajectory over the time outside trainer steps (the rollout phase). whole-loop util: trainer steps counted as useful GPU time.'
      : 'rollout GPU util (effective): engine GPU time on tokens that stay in a trajectory over the engine GPUs\' whole window (waiting for the trainer and the weight push count against it). whole-loop util: useful engine time and trainer busy time over every GPU\'s window.',
    '',
    ...(goals.length > 0 ? [`Goals (${LOOP_LABELS[config.scheduler]}):`, ...goals, ''] : []),
    ...(sensitivity.length > 0 ? [`Sensitivity: ${LOOP_LABELS[config.scheduler]} vs (i) synchronous, one assumption changed, everything else as above:`, '', sensitivityTable(sensitivity, config.scheduler), ''] : []),
  ];
}

/** Runs every topology, loop and variation of `config`; returns the benchmark's text (markdown). */
export async function runGpuBench(config: GpuBenchConfig): Promise<string> {
  const { params } = config;
  const sections: string[] = [];
  for (const run of config.topologies) sections.push(...(await topologySection(config, run)));
  return [
    ...parameterLines(config),
    '',
    `Workload (the first ${params.groups * params.steps} groups of the stream):`,
    '',
    summarizeWorkload(sampledPlans(params, params.groups * params.steps)),
    '',
    describeWorkloadOptions(params.workload.options),
    '',
    'busy: any engine step running. tail waste: sampled tokens lost, at the loop\'s rate outside tails, from the last agent start among a step\'s trained sessions to the step, over the window (= % of a step cycle). ' +
      'staleness: versions between a trained token\'s weights and the step that trains it. sessions/h: trained sessions corrected for the work in progress at the window\'s ends. trainer share: share of the window the trainer computed.',
    '',
    ...sections,
  ].join('\n');
}

export const gpuScheduler: Benchmark = {
  name: 'GPU training loops on simulated GPUs (one shared GPU; 1 engine + 1 trainer GPU; 4 engine replicas + 4 trainer GPUs): sync vs polar serve today vs the new scheduler (gpu)',
  run: () => runGpuBench(defaultGpuBenchConfig()),
};
